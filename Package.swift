// swift-tools-version:6.2
import PackageDescription

// One list for every target, as in Hummingbird: explicit existentials and imports that say what
// each file really uses.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The commit a release is built from, given by scripts/package in the environment; ASCII letters,
// digits and `-` only, so it is safe inside a C string literal.
let buildCommit = (Context.environment["FIREHOSE_LOCAL_COMMIT"] ?? "").filter {
    $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")
}

let package = Package(
    name: "firehose-local",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "firehose-local", targets: ["firehose-local"]),
        .library(name: "FirehoseWire", targets: ["FirehoseWire"]),
        .library(name: "AWSSigV4", targets: ["AWSSigV4"]),
        .library(name: "FirehoseSink", targets: ["FirehoseSink"]),
        .library(name: "FirehoseServer", targets: ["FirehoseServer"]),
        .library(name: "FirehoseClient", targets: ["FirehoseClient"]),
        .library(name: "FirehoseRecorder", targets: ["FirehoseRecorder"]),
        .library(name: "FirehoseTestSupport", targets: ["FirehoseTestSupport"]),
        .executable(name: "firehose-record", targets: ["firehose-record"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // zlib from the system (Debian: zlib1g-dev); used directly so the sink controls flushing,
        // levels and CRCs (its raw deflate segments), and so clients (gzip request bodies) need no NIO.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The jq library (Debian: libjq-dev, jq 1.6 as AWS's JQ-1.6), for dynamic partitioning's
        // MetadataExtraction queries. Debian ships no pkg-config file for it.
        .systemLibrary(name: "CJQ", providers: [.apt(["libjq-dev"]), .brew(["jq"])]),
        // Snappy (Debian: libsnappy-dev) for the Snappy and HADOOP_SNAPPY compression formats.
        .systemLibrary(
            name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"]), .brew(["snappy"])]
        ),
        // libdeflate (Debian: libdeflate-dev): deflate of a whole buffer in one call, about 1.8 times
        // as fast as zlib at level 6 with objects a little smaller (docs/benchmarks.md), for GZIP
        // objects compressed at delivery (GzipImplementation: libdeflate).
        .systemLibrary(name: "CLibdeflate", providers: [.apt(["libdeflate-dev"])]),
        // The commit `--version` names (see `buildCommit` above).
        .target(
            name: "CBuildInfo",
            cSettings: buildCommit.isEmpty ? [] : [.define("FIREHOSE_LOCAL_COMMIT", to: "\"\(buildCommit)\"")]
        ),
        // Extended attributes (the C library's): an object's ETag kept with its file when it is not
        // the content's MD5 (a multipart upload's).
        .systemLibrary(name: "CXattr"),
        // jq queries compiled once and run on records; the one place the jq library is called.
        .target(name: "JQ", dependencies: ["CJQ"], swiftSettings: swiftSettings),
        // What both sides of the wire need: request/response shapes, X-Amz-Target parsing, AWS error
        // bodies, service limits, and gzip bodies (compressed by clients, inflated by the server).
        .target(name: "FirehoseWire", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        // IAM identity-based policies: parsing and evaluation, pure.
        .target(name: "IAMPolicy", dependencies: ["FirehoseWire"], swiftSettings: swiftSettings),
        // The calendar in integer arithmetic and the timestamp texts (HTTP dates, ISO 8601): the one
        // place days become dates, for SigV4, object keys, answers and the command line. No deps.
        .target(name: "CivilTime", swiftSettings: swiftSettings),
        // SigV4 canonical requests, signer (clients) and verifier (server). Only depends on Crypto.
        .target(
            name: "AWSSigV4",
            dependencies: ["CivilTime", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Where credentials come from without a network call: given, the environment, the shared
        // config and credentials files, a chain of those. Foundation only: the server reads
        // `CredentialsFrom` with it and links no FoundationNetworking.
        .target(name: "AWSCredentialProviders", dependencies: ["AWSSigV4"], swiftSettings: swiftSettings),
        // What the sink and the recorder both need to make writes durable: group commit as a state
        // machine, and the POSIX file calls under it. No NIO, no Foundation networking.
        .target(name: "DurableStorage", swiftSettings: swiftSettings),
        // S3 prefix expressions (`!{timestamp:...}`, `!{firehose:...}`) and object key layout.
        .target(name: "FirehoseKeyLayout", dependencies: ["CivilTime"], swiftSettings: swiftSettings),
        // Delivery streams, buffers, compression and atomic publishing into the data directory; what
        // leaves through HTTP (endpoint destinations, Lambda functions) goes through an `HTTPTransport`.
        .target(
            name: "FirehoseSink",
            dependencies: [
                "CZlib",
                "CSnappy",
                "CLibdeflate",
                "CXattr",
                "JQ",
                "FirehoseWire",
                "FirehoseKeyLayout",
                "DurableStorage",
                "HTTPTransports",
                "AsyncHTTPClientTransport",
                "AWSSigV4",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Kinesis Data Streams' records: the hash key space and its shards, sequence numbers and
        // iterators, and the durable log (SQLite) every stream's shards are kept in.
        .target(
            name: "KinesisStreams",
            dependencies: [
                "FirehoseWire", "DurableStorage", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // What every emulated service's API is written against: the request and response as the front
        // door hands them over, AWS JSON 1.1's checks and answers, SigV4 verification of a request, and
        // the seams between services (the caller policies bind, the grants behind issued credentials).
        // No HTTP server.
        .target(
            name: "ServerCore",
            dependencies: [
                "FirehoseWire", "AWSSigV4", "IAMPolicy", "DurableStorage",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // IAM's roles and inline policies (the Query API), and which callers identity-based policies bind.
        .target(
            name: "IAMService",
            dependencies: [
                "ServerCore", "FirehoseWire", "AWSSigV4", "IAMPolicy", "DurableStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Cognito Identity: identity pools, identities and the temporary credentials every endpoint
        // accepts, kept in the data directory.
        .target(
            name: "CognitoIdentityService",
            dependencies: [
                "ServerCore", "FirehoseWire", "AWSSigV4", "DurableStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Kinesis Data Streams' API over the stream log: control plane, data plane, descriptions.
        .target(
            name: "KinesisService",
            dependencies: [
                "ServerCore", "FirehoseWire", "KinesisStreams", "CivilTime",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // S3 over the bucket folders of the data directory: objects, listings, multipart uploads.
        .target(
            name: "S3Service",
            dependencies: [
                "ServerCore", "FirehoseSink", "FirehoseWire", "AWSSigV4", "CivilTime", "DurableStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Fault rules (errors, latency, resets, hangs, failed records) as a pure state machine, their
        // definitions as the configuration file and `/_local/faults` give them, and the injector.
        .target(
            name: "STSService",
            dependencies: [
                "ServerCore", "FirehoseWire", "AWSSigV4", "IAMPolicy", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FaultInjection",
            dependencies: ["ServerCore", "FirehoseWire", "AWSSigV4", "CivilTime"],
            swiftSettings: swiftSettings
        ),
        // Firehose's API: CreateDeliveryStream's validation (API calls and the configuration file share
        // it), the control plane, descriptions and the data plane over the sink. No HTTP server.
        .target(
            name: "FirehoseService",
            dependencies: [
                "ServerCore", "FirehoseSink", "FirehoseWire", "FirehoseKeyLayout", "JQ", "KinesisStreams",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The front door on Hummingbird: listener, connection limits, body deadlines, the memory budget,
        // routing to the services, SigV4 check, the fault stage, metrics, /_local and the live view.
        .target(
            name: "FirehoseServer",
            dependencies: [
                "ServerCore",
                "IAMService",
                "CognitoIdentityService",
                "KinesisService",
                "S3Service",
                "STSService",
                "FaultInjection",
                "FirehoseService",
                "CivilTime",
                "FirehoseWire",
                "AWSSigV4",
                "FirehoseSink",
                "DurableStorage",
                "KinesisStreams",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The live view (/_local/ui), served from the binary itself.
            resources: [.embedInCode("UI/index.html"), .embedInCode("UI/app.js"), .embedInCode("UI/app.css")],
            swiftSettings: swiftSettings
        ),
        // Command line, configuration file and process lifecycle.
        .target(
            name: "FirehoseLocalCLI",
            dependencies: [
                "CivilTime",
                "KinesisStreams",
                "FirehoseKeyLayout",
                "HTTPTransports",
                "AsyncHTTPClientTransport",
                "FirehoseServer",
                "ServerCore",
                "IAMService",
                "CognitoIdentityService",
                "KinesisService",
                "FaultInjection",
                "FirehoseService",
                "FirehoseSink",
                "FirehoseWire",
                "AWSCredentialProviders",
                "AWSSigV4",
                "CBuildInfo",
                "DurableStorage",
                "IAMPolicy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "firehose-local",
            dependencies: ["FirehoseLocalCLI"],
            swiftSettings: swiftSettings
        ),
        // The client's transport abstraction and its HTTP/1.1 over plain TCP, without FoundationNetworking
        // (no libcurl): the client uses it on loopback, the CLI's `flush` to reach a running server.
        .target(name: "HTTPTransports", swiftSettings: swiftSettings),
        // The server's outbound HTTP (HTTP endpoint destinations, Lambda Invoke API endpoints) over
        // AsyncHTTPClient: https as well as http, behind the same `HTTPTransport` abstraction.
        .target(
            name: "AsyncHTTPClientTransport",
            dependencies: [
                "HTTPTransports",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // Firehose data-plane client: SigV4, credentials providers, pluggable transport. No NIO/Hummingbird,
        // so an iOS app can link it.
        .target(
            name: "FirehoseClient",
            dependencies: ["CivilTime", "FirehoseWire", "AWSSigV4", "AWSCredentialProviders", "HTTPTransports"],
            swiftSettings: swiftSettings
        ),
        // Disk-backed recorder (SQLite via GRDB). No NIO/Hummingbird.
        .target(
            name: "FirehoseRecorder",
            dependencies: [
                "FirehoseClient", "FirehoseWire", "DurableStorage", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // Scriptable fake endpoint, test clocks and sleepers, a real firehose-local process helper.
        .target(
            name: "FirehoseTestSupport",
            dependencies: ["CivilTime", "FirehoseClient", "FirehoseWire", "AWSSigV4", "HTTPTransports"],
            swiftSettings: swiftSettings
        ),
        // Example: records lines from stdin and submits them.
        .executableTarget(
            name: "firehose-record",
            dependencies: ["FirehoseRecorder", "FirehoseClient"],
            path: "Examples/firehose-record",
            swiftSettings: swiftSettings
        ),
        // What the service test targets share (signed requests, checks of AWS JSON answers).
        .target(
            name: "ServiceTestSupport", dependencies: ["ServerCore", "AWSSigV4", "FirehoseWire"],
            path: "Tests/ServiceTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JQTests", dependencies: ["JQ"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FirehoseClientTests",
            dependencies: ["FirehoseClient", "FirehoseTestSupport", "FirehoseWire"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseRecorderTests",
            dependencies: [
                "FirehoseRecorder", "FirehoseClient", "FirehoseTestSupport", "FirehoseWire", "HTTPTransports",
                "firehose-record",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseWireTests", dependencies: ["FirehoseWire", "FirehoseTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "STSServiceTests",
            dependencies: [
                "STSService", "ServerCore", "ServiceTestSupport", "AWSSigV4", "IAMPolicy", "FirehoseTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IAMServiceTests",
            dependencies: [
                "IAMService", "ServerCore", "ServiceTestSupport", "FirehoseWire", "AWSSigV4", "IAMPolicy",
                "FirehoseTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CognitoIdentityServiceTests",
            dependencies: [
                "CognitoIdentityService", "ServerCore", "ServiceTestSupport", "FirehoseWire", "AWSSigV4",
                "FirehoseTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KinesisServiceTests",
            dependencies: [
                "KinesisService", "KinesisStreams", "ServerCore", "ServiceTestSupport", "FirehoseTestSupport",
                "FirehoseWire", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "S3ServiceTests",
            dependencies: [
                "S3Service", "ServerCore", "ServiceTestSupport", "FirehoseSink", "FirehoseWire", "FirehoseTestSupport",
                "AWSSigV4",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FaultInjectionTests",
            dependencies: ["FaultInjection", "ServerCore", "FirehoseWire", "AWSSigV4"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseServiceTests",
            dependencies: ["FirehoseService", "FirehoseSink", "FirehoseWire", "FirehoseKeyLayout"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "IAMPolicyTests", dependencies: ["IAMPolicy", "FirehoseWire"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FirehoseTestSupportTests", dependencies: ["FirehoseTestSupport"], swiftSettings: swiftSettings
        ),
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"], swiftSettings: swiftSettings),
        .testTarget(
            name: "KinesisStreamsTests",
            dependencies: ["KinesisStreams", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DurableStorageTests", dependencies: ["DurableStorage"], swiftSettings: swiftSettings),
        .testTarget(name: "AWSSigV4Tests", dependencies: ["AWSSigV4", "FirehoseWire"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FirehoseKeyLayoutTests",
            dependencies: ["CivilTime", "FirehoseKeyLayout", "FirehoseWire"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseSinkTests",
            dependencies: [
                "FirehoseSink", "FirehoseWire", "FirehoseKeyLayout", "DurableStorage", "FirehoseTestSupport",
                "HTTPTransports", "AsyncHTTPClientTransport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseServerTests",
            dependencies: [
                "FirehoseServer", "ServerCore", "IAMService", "CognitoIdentityService", "KinesisService",
                "FaultInjection", "FirehoseService", "ServiceTestSupport",
                "FirehoseSink", "FirehoseWire", "FirehoseKeyLayout",
                "AWSSigV4",
                "FirehoseTestSupport",
                "IAMPolicy", "KinesisStreams",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirehoseLocalCLITests",
            dependencies: [
                "FirehoseLocalCLI", "KinesisService", "FaultInjection", "FirehoseService",
                "FirehoseSink",
                "FirehoseWire", "AWSSigV4",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
