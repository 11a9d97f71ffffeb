// swift-tools-version:6.1
// libFuzzer harnesses for the code that reads untrusted bytes. A package of its own so the main
// build never needs the fuzzer runtime. See docs/durability.md ("Hostile input") for the commands.
import PackageDescription

let package = Package(
    name: "firehose-local-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzRequestDecoder",
            dependencies: [.product(name: "FirehoseWire", package: "firehose-local")]
        ),
        .executableTarget(
            name: "FuzzSigV4",
            dependencies: [.product(name: "AWSSigV4", package: "firehose-local")]
        ),
    ]
)
