import FirehoseWire
import Testing

@testable import FirehoseServer

@Suite("Transfer-Encoding: what the body's framing allows (RFC 9112 §6)")
struct TransferCodingTests {
    private func refusal(_ fields: [String]) -> (status: Int, code: String)? {
        let codings = fields.flatMap { $0.split(separator: ",") }
        return FirehoseResponder.transferCodingRefusal(codings).map { ($0.httpStatus, $0.code) }
    }

    @Test("chunked alone, in any case and spacing, is the framing", arguments: ["chunked", "Chunked", " CHUNKED\t"])
    func chunked(field: String) {
        #expect(refusal([field]) == nil)
    }

    @Test(
        "A length that cannot be known is 400",
        arguments: [["gzip"], ["chunked, gzip"], ["chunked", "chunked"], ["chunked, chunked"], ["identity"]])
    func unknownLength(fields: [String]) {
        let answer = refusal(fields)
        #expect(answer?.status == 400 && answer?.code == "SerializationException")
    }

    @Test(
        "A coding before chunked is 501: the body is framed, but nothing here would undo it",
        arguments: [["gzip, chunked"], ["x-custom", "chunked"], ["identity, chunked"]])
    func unsupportedCoding(fields: [String]) {
        let answer = refusal(fields)
        #expect(answer?.status == 501 && answer?.code == "NotImplemented")
    }
}
