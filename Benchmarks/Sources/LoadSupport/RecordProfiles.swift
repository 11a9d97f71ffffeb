import FirehoseWire

/// SplitMix64 (FirehoseWire's): a profile's records are reproducible from the seed alone (nothing
/// generated is committed).
public typealias SeededGenerator = SplitMix64

/// The shapes of record the benchmarks send.
public enum RecordProfile: String, CaseIterable, Sendable {
    /// Mobile-app analytics events: one JSON object each, 300–1,000 bytes, with the mix of fixed
    /// vocabulary, ids, numbers and free-form properties real SDKs send.
    case appEvents = "app-events"
    /// 100-byte records (compact JSON), for per-request overhead.
    case small

    public var sizeRange: ClosedRange<Int> {
        switch self {
        case .appEvents: 300...1_000
        case .small: 100...100
        }
    }

    /// `count` records, the same for the same `seed`.
    public func records(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        var users = UserPool(random: &random)
        return (0..<count).map { index in
            switch self {
            case .appEvents: AppEventWriter.event(index: index, users: &users, random: &random)
            case .small: AppEventWriter.small(index: index, random: &random)
            }
        }
    }
}

/// A fixed population of users and devices, so events repeat ids the way a real stream does (which
/// matters for how well it compresses).
struct UserPool {
    struct User {
        var userID: String
        var installID: String
        var sessionID: String
        var platform: String
        var osVersion: String
        var model: String
        var appVersion: String
        var locale: String
        var timeZone: String
        var country: String
        var carrier: String
    }

    var users: [User] = []

    init(random: inout SeededGenerator) {
        for _ in 0..<2_000 {
            let iOS = Bool.random(using: &random)
            users.append(
                User(
                    userID: "u_" + Hex.random(bytes: 6, using: &random),
                    installID: Hex.uuid(using: &random),
                    sessionID: "s_" + Hex.random(bytes: 8, using: &random),
                    platform: iOS ? "ios" : "android",
                    osVersion: iOS
                        ? ["17.6.1", "18.1", "18.2.1", "18.3", "26.0.1", "26.1"].randomElement(using: &random)!
                        : ["12", "13", "14", "15", "16"].randomElement(using: &random)!,
                    model: iOS
                        ? ["iPhone14,5", "iPhone15,2", "iPhone16,1", "iPhone17,3", "iPad13,18"].randomElement(
                            using: &random)!
                        : ["Pixel 8", "Pixel 9 Pro", "SM-S921B", "SM-A546B", "moto g54 5G", "2311DRK48G"]
                            .randomElement(using: &random)!,
                    appVersion: ["5.12.0", "5.12.1", "5.13.0", "5.14.2", "6.0.0"].randomElement(using: &random)!,
                    locale: ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "pt_BR", "ja_JP", "hi_IN"].randomElement(
                        using: &random)!,
                    timeZone: [
                        "America/New_York", "America/Los_Angeles", "Europe/Berlin", "Europe/London",
                        "Asia/Tokyo", "Asia/Kolkata", "America/Sao_Paulo",
                    ].randomElement(using: &random)!,
                    country: ["US", "GB", "DE", "FR", "ES", "BR", "JP", "IN"].randomElement(using: &random)!,
                    carrier: ["Verizon", "T-Mobile", "Vodafone", "Orange", "Telekom", "Jio", "Claro", "none"]
                        .randomElement(using: &random)!))
        }
    }
}

enum AppEventWriter {
    static let eventNames = [
        "screen_view", "screen_view", "screen_view", "button_tap", "button_tap", "session_start", "session_end",
        "add_to_cart", "purchase", "search", "push_open", "error", "app_background", "app_foreground",
    ]
    static let screens = [
        "Home", "Feed", "ProductDetail", "Cart", "Checkout", "Search", "Settings", "Profile", "Onboarding.Step2",
        "OrderHistory",
    ]
    static let networks = ["wifi", "cellular", "wifi", "wifi", "offline"]
    static let words = [
        "blue", "summer", "sale", "shoes", "jacket", "running", "wireless", "headphones", "coffee", "kids",
        "organic", "gift", "premium", "travel", "bag", "watch", "lamp", "desk", "chair", "phone", "case",
    ]
    static let errorMessages = [
        "The request timed out.", "The network connection was lost.", "HTTP 503 from api/v2/cart",
        "Decoding failed: keyNotFound(price)", "Image cache miss for thumbnail",
    ]

    /// One event; its size is drawn in 300...1000 and reached by adding free-form properties.
    static func event(index: Int, users: inout UserPool, random: inout SeededGenerator) -> [UInt8] {
        let target = Int.random(in: 300...940, using: &random)
        let user = users.users.randomElement(using: &random)!
        let name = eventNames.randomElement(using: &random)!
        // 2026-11-21 around noon UTC, milliseconds apart.
        let timestamp = 1_795_262_400_000 + Int64(index) * 37 + Int64.random(in: 0..<1_000, using: &random)
        var json = JSONText()
        json.begin()
        json.field("event_id", Hex.uuid(using: &random))
        json.field("event", name)
        json.field("ts", timestamp)
        json.field("session_id", user.sessionID)
        json.field("user_id", user.userID)
        // SDKs attach the device context to some events only (session starts, errors, a sample).
        if name == "session_start" || name == "error" || Int.random(in: 0..<3, using: &random) == 0 {
            json.field("install_id", user.installID)
            json.object("device") { device in
                device.field("platform", user.platform)
                device.field("os_version", user.osVersion)
                device.field("model", user.model)
                device.field("locale", user.locale)
                device.field("tz", user.timeZone)
            }
            json.object("app") { app in
                app.field("version", user.appVersion)
                app.field("build", Int.random(in: 4_100...4_180, using: &random))
            }
        }
        json.field("network", networks.randomElement(using: &random)!)
        json.field("screen", screens.randomElement(using: &random)!)
        let before = json.count + #","props":"#.utf8.count + 1
        json.object("props") { props in
            switch name {
            case "purchase", "add_to_cart":
                props.field("sku", "SKU-" + String(Int.random(in: 10_000...99_999, using: &random)))
                props.field("price_cents", Int.random(in: 199...24_999, using: &random))
                props.field("currency", ["USD", "EUR", "GBP", "JPY", "BRL", "INR"].randomElement(using: &random)!)
                props.field("quantity", Int.random(in: 1...4, using: &random))
            case "search":
                props.field("query", phrase(words: Int.random(in: 1...4, using: &random), random: &random))
                props.field("results", Int.random(in: 0...500, using: &random))
            case "error":
                props.field("message", errorMessages.randomElement(using: &random)!)
                props.field("code", Int.random(in: -1_009...(-1_001), using: &random))
            default:
                props.field("duration_ms", Int.random(in: 5...60_000, using: &random))
            }
            props.field("country", user.country)
            props.field("carrier", user.carrier)
            props.field("battery", Double(Int.random(in: 3...100, using: &random)) / 100)
            // App-specific properties until the drawn size is reached (each adds 15–45 bytes): mostly
            // low-cardinality values (experiments, catalogue ids, words, small counts) with the odd
            // opaque id, as analytics SDKs send them.
            var extra = 0
            while before + props.count < target {
                extra += 1
                switch Int.random(in: 0..<8, using: &random) {
                case 0, 1:
                    props.field(
                        "exp_\(Int.random(in: 1...40, using: &random))",
                        ["control", "variant_a", "variant_b"].randomElement(using: &random)!)
                case 2, 3:
                    props.field("tag_\(extra)", phrase(words: Int.random(in: 1...3, using: &random), random: &random))
                case 4:
                    props.field("item_\(extra)", "SKU-" + String(Int.random(in: 10_000...10_500, using: &random)))
                case 5:
                    props.field("from_screen", screens.randomElement(using: &random)!)
                case 6:
                    props.field("count_\(extra)", Int.random(in: 0...50, using: &random))
                default:
                    props.field("ref_\(extra)", Hex.random(bytes: 6, using: &random))
                }
            }
        }
        json.end()
        return json.bytes
    }

    /// Exactly 100 bytes of compact JSON.
    static func small(index: Int, random: inout SeededGenerator) -> [UInt8] {
        var json = JSONText()
        json.begin()
        json.field("e", eventNames.randomElement(using: &random)!)
        json.field("ts", 1_795_262_400_000 + Int64(index) * 11)
        json.field("u", "u_" + Hex.random(bytes: 6, using: &random))
        json.field("p", "")
        json.end()
        // Pad the last string value to land on exactly 100 bytes.
        var bytes = json.bytes
        let padding = 100 - bytes.count
        precondition(padding >= 0, "small record template grew past 100 bytes")
        let insertAt = bytes.count - 2  // before `"}`
        bytes.insert(
            contentsOf: (0..<padding).map { _ in words.randomElement(using: &random)!.utf8.first! }, at: insertAt)
        return bytes
    }

    static func phrase(words count: Int, random: inout SeededGenerator) -> String {
        (0..<count).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
    }
}

/// Compact JSON written straight into bytes (values here never need escaping).
struct JSONText {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false
    var count: Int { bytes.count }

    mutating func begin() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func end() { bytes.append(UInt8(ascii: "}")) }

    private mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: "\":".utf8)
    }

    mutating func field(_ name: String, _ value: String) {
        key(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func field(_ name: String, _ value: some BinaryInteger) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func field(_ name: String, _ value: Double) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A nested object whose fields `body` writes.
    mutating func object(_ name: String, _ body: (inout JSONText) -> Void) {
        key(name)
        var nested = JSONText()
        nested.begin()
        body(&nested)
        nested.end()
        bytes.append(contentsOf: nested.bytes)
    }
}

enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func random(bytes count: Int, using random: inout SeededGenerator) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for _ in 0..<count {
            let byte = UInt8.random(in: 0...255, using: &random)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func uuid(using random: inout SeededGenerator) -> String {
        let hex = Array(Hex.random(bytes: 16, using: &random).utf8)
        let groups: [ArraySlice<UInt8>] = [hex[0..<8], hex[8..<12], hex[12..<16], hex[16..<20], hex[20..<32]]
        return groups.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "-")
    }
}
