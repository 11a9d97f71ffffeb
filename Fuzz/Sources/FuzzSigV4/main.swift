import AWSSigV4
import Foundation

let verifier = SigV4Verifier(region: "us-east-1", service: "firehose") { key in
    AWSCredentials(accessKeyId: key, secretAccessKey: "secret", sessionToken: key.hasPrefix("ASIA") ? "token" : nil)
}
let now = Date(timeIntervalSince1970: 1_795_266_309)

/// Interprets the input as header lines (`name: value`, one per line) followed by a blank line and a
/// body, and verifies it: any input must be accepted or refused with a SigV4Error — never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
    var headers: [(name: String, value: String)] = [("host", "127.0.0.1:4573"), ("x-amz-date", "20261121T130509Z")]
    for line in parts[0].split(separator: "\n") {
        let pieces = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        headers.append((String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : ""))
    }
    let body = parts.count > 1 ? Array(parts[1].utf8) : []
    let path = headers.first { $0.name == "path" }?.value ?? "/"
    let query = headers.first { $0.name == "query" }?.value ?? ""
    let request = SigV4Request(
        method: "POST", path: path, query: query, headers: headers, bodySHA256: SHA256Hex.hash(body))
    _ = try? verifier.verify(request, now: now)
    return 0
}

// SwiftPM links an executable's entry point as `FuzzSigV4_main`; hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

@_cdecl("FuzzSigV4_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzz)
}
