// swift-tools-version:6.2
// Benchmarks for firehose-local: the `firehose-load` load generator, the `deflate-ceiling` program that
// measures what zlib (and ISA-L, libdeflate) can do on this machine, `kinesis-read` (GetRecords to a stream's end),
// `recorder-bench` for FirehoseRecorder, `lambda-identity`
// (a transformation function that costs next to nothing), and ordo-one
// micro benchmarks of the hot paths. A package of its own, as in SwiftNIO, so the main build never
// resolves the benchmark dependencies; the main package's libraries are symlinked in (as in Fuzz/).
// `run.sh` runs the whole set; see docs/benchmarks.md.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "firehose-local-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Symlinks to the main package's sources (../../Sources/...).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CJQ", providers: [.apt(["libjq-dev"])]),
        .systemLibrary(name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"])]),
        // The faster deflates deflate-ceiling compares with zlib (issue 20).
        .systemLibrary(name: "CIsal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CLibdeflate", providers: [.apt(["libdeflate-dev"])]),
        .target(name: "JQ", dependencies: ["CJQ"]),
        .target(name: "FirehoseWire", dependencies: ["CZlib"]),
        .target(name: "CivilTime"),
        .target(name: "AWSSigV4", dependencies: ["CivilTime", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "HTTPTransports"),
        .target(name: "AWSCredentialProviders", dependencies: ["AWSSigV4"]),
        .target(
            name: "FirehoseClient",
            dependencies: ["CivilTime", "FirehoseWire", "AWSSigV4", "AWSCredentialProviders", "HTTPTransports"]
        ),
        .target(name: "DurableStorage"),
        .target(name: "FirehoseKeyLayout", dependencies: ["CivilTime"]),
        // The sink, for the micro benchmarks of its GZIP segments.
        .target(
            name: "FirehoseSink",
            dependencies: [
                "CZlib", "CSnappy", "CLibdeflate", "JQ", "FirehoseWire", "FirehoseKeyLayout", "DurableStorage", "HTTPTransports",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FirehoseRecorder",
            dependencies: [
                "FirehoseClient", "FirehoseWire", "DurableStorage", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),

        // Seeded record profiles, signed request rendering and /proc readings, shared by the tools
        // and the micro benchmarks so all of them work on the same bytes.
        .target(
            name: "LoadSupport",
            dependencies: ["FirehoseWire", "FirehoseClient", "AWSSigV4"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "firehose-load",
            dependencies: [
                "LoadSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "deflate-ceiling",
            dependencies: [
                "LoadSupport", "CZlib", "CIsal", "CLibdeflate",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The benchmark's transformation function (command and Invoke API modes).
        .executableTarget(
            name: "lambda-identity",
            dependencies: [
                "FirehoseWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "kinesis-read",
            dependencies: [
                "LoadSupport", "FirehoseClient", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "recorder-bench",
            dependencies: [
                "LoadSupport", "FirehoseClient", "FirehoseRecorder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HotPaths",
            dependencies: [
                "LoadSupport", "FirehoseWire", "FirehoseSink", "AWSSigV4", "CZlib",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/HotPaths",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
