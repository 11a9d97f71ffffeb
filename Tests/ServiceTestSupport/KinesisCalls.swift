import Foundation
package import ServerCore
package import Testing

/// The Kinesis Data Streams calls tests make, on whatever answers them: the Kinesis service alone, or
/// the whole server through its front door.
package protocol KinesisCalls {
    func kinesis(_ operation: String, _ body: String, contentType: String) async -> APIResponse
}

extension KinesisCalls {
    package func kinesis(_ operation: String, _ body: String) async -> APIResponse {
        await kinesis(operation, body, contentType: "application/x-amz-json-1.1")
    }

    /// The call's JSON answer, after checking it succeeded.
    package func kinesisOK(_ operation: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [String: Any]
    {
        let response = await kinesis(operation, body)
        #expect(
            response.status == 200, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        return response.body.isEmpty ? [:] : try json(response)
    }

    package func iterator(_ stream: String, shard: String = "shardId-000000000000", _ type: String, extra: String = "")
        async throws -> String
    {
        let answer = try await kinesisOK(
            "GetShardIterator",
            #"{"StreamName": "\#(stream)", "ShardId": "\#(shard)", "ShardIteratorType": "\#(type)"\#(extra)}"#)
        return try #require(answer["ShardIterator"] as? String)
    }

    package func records(_ iterator: String, limit: Int? = nil) async throws -> (
        data: [String], next: String, behind: Int
    ) {
        let answer = try await kinesisOK(
            "GetRecords", #"{"ShardIterator": "\#(iterator)"\#(limit.map { #", "Limit": \#($0)"# } ?? "")}"#)
        let records = try #require(answer["Records"] as? [[String: Any]])
        let data = records.map { String(decoding: Data(base64Encoded: $0["Data"] as! String)!, as: UTF8.self) }
        return (data, try #require(answer["NextShardIterator"] as? String), answer["MillisBehindLatest"] as? Int ?? -1)
    }
}

/// Text as the base64 a JSON blob member carries.
package func b64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
