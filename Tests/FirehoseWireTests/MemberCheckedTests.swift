import FirehoseWire
import Foundation
import Testing

// Member names as a configuration file spells them.
// swift-format-ignore: AlwaysUseLowerCamelCase
private struct Inner: Decodable, Equatable {
    var Size: Int?
    var Name: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case Size, Name }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
private struct Outer: Decodable, Equatable {
    var Items: [Inner]?
    var ByName: [String: Inner]?
    var One: Inner?
    var Link: URL?
    var Anything: [String: Int]?

    enum CodingKeys: String, CodingKey, CaseIterable { case Items, ByName, One, Link, Anything }
}

/// Reads more members than its keys name, as shapes that refuse some members by name do.
private struct Wide: Decodable, DeclaresKnownMembers {
    var inner: Inner
    static var knownMembers: [String] { ["Size", "Name", "Later"] }

    init(from decoder: any Decoder) throws { inner = try Inner(from: decoder) }
}

@Suite("MemberChecked: unknown members refused at any depth, over any decoder")
struct MemberCheckedTests {
    private func strict<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(MemberChecked<T>.self, from: Data(json.utf8)).value
    }

    private func unknown<T: Decodable>(_ type: T.Type, _ json: String) -> UnknownMemberError? {
        do {
            _ = try strict(type, json)
            return nil
        } catch {
            return error as? UnknownMemberError
        }
    }

    @Test("What the shapes read decodes as without the check; maps and URLs are the decoder's own")
    func known() throws {
        let json =
            #"{"Items": [{"Size": 1}], "ByName": {"a": {"Name": "x"}}, "One": null, "Link": "http://h/p", "Anything": {"k": 2}}"#
        let value = try strict(Outer.self, json)
        #expect(value == (try JSONDecoder().decode(Outer.self, from: Data(json.utf8))))
        #expect(value.Link == URL(string: "http://h/p"))
        #expect(value.Anything == ["k": 2])
    }

    @Test(
        "An unknown member is named with where it is and what is known there",
        arguments: [
            (#"{"Itemz": []}"#, [String](), "Itemz", ["Items", "ByName", "One", "Link", "Anything"]),
            (#"{"Items": [{"Size": 1}, {"Sise": 2}]}"#, ["Items", "Index 1"], "Sise", ["Size", "Name"]),
            (#"{"ByName": {"a": {"name": "x"}}}"#, ["ByName", "a"], "name", ["Size", "Name"]),
            (#"{"One": {"Size": 1, "Extra": true}}"#, ["One"], "Extra", ["Size", "Name"]),
        ])
    func refused(json: String, path: [String], member: String, known: [String]) throws {
        let error = try #require(unknown(Outer.self, json))
        #expect(error.codingPath == path)
        #expect(error.member == member)
        #expect(error.knownMembers == known)
        // Without the check the same text decodes: unknown members are ignored, as AWS's shapes do.
        _ = try JSONDecoder().decode(Outer.self, from: Data(json.utf8))
    }

    @Test("A shape that declares more members accepts them and refuses the rest")
    func declared() throws {
        #expect(try strict(Wide.self, #"{"Size": 3, "Later": 1}"#).inner.Size == 3)
        #expect(unknown(Wide.self, #"{"Size": 3, "Other": 1}"#)?.knownMembers == ["Size", "Name", "Later"])
    }

    @Test("Type errors are the decoder's own, unchanged by the check")
    func typeErrors() {
        func message<T: Decodable>(_ decode: () throws -> T) -> String {
            do {
                _ = try decode()
                return ""
            } catch let error as DecodingError {
                return RequestJSON.describe(error)
            } catch {
                return "\(error)"
            }
        }
        for json in [#"{"One": {"Size": "big"}}"#, #"{"Items": [1]}"#, #"{"One": 5}"#] {
            #expect(
                message { try strict(Outer.self, json) }
                    == message { try JSONDecoder().decode(Outer.self, from: Data(json.utf8)) })
        }
    }
}
