import FirehoseWire

/// Every byte string must decode or be refused with a FirehoseError — never trap, never hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? PutRecordsRequest.decodePutRecordBatch(bytes)
    _ = try? PutRecordsRequest.decodePutRecord(bytes)
    _ = try? Gzip.decompress(bytes, limit: 1 << 20)
    _ = try? Gzip.decompressPrefix(bytes, limit: 1 << 20)
    var output: [UInt8] = []
    _ = Base64.decode(bytes, appendingTo: &output)
    _ = FirehoseOperation.isAcceptedContentType(String(decoding: bytes, as: UTF8.self))
    _ = try? FirehoseOperation(target: String(decoding: bytes, as: UTF8.self))
    return 0
}

// SwiftPM links an executable's entry point as `FuzzRequestDecoder_main`; hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

@_cdecl("FuzzRequestDecoder_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzz)
}
