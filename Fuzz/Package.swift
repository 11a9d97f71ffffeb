// swift-tools-version:6.2
// libFuzzer harnesses for the code that reads untrusted bytes. A package of its own (the library
// sources are symlinked in) so the main build never needs the fuzzer runtime. Commands in
// docs/durability.md ("Hostile input").
import PackageDescription

let package = Package(
    name: "firehose-local-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3")],
    targets: [
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "FirehoseWire", dependencies: ["CZlib"]),
        .target(name: "CivilTime"),
        .target(name: "AWSSigV4", dependencies: ["CivilTime", .product(name: "Crypto", package: "swift-crypto")]),
        .executableTarget(name: "FuzzRequestDecoder", dependencies: ["FirehoseWire"]),
        .executableTarget(name: "FuzzSigV4", dependencies: ["AWSSigV4"]),
    ]
)
