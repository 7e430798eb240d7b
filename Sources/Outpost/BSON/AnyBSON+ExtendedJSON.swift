import Foundation
import OutpostCore

/// Every ``AnyBSON`` as canonical Extended JSON v2 and back, for function calls: unlike the server's document
/// model (``BSONConversion``), a function's arguments and result keep `.int32` apart from `.int64` and may be
/// regular expressions, timestamps, minKey and maxKey.
extension AnyBSON {
    /// The canonical Extended JSON of the value.
    ///
    /// - Throws: ``AppError`` `.badRequest` for a document key that starts with `$` and looks like an operator the
    ///   reader would mistake for a type wrapper (`$oid`, `$date`, …), naming where it is.
    func canonicalExtendedJSON(path: String) throws(AppError) -> JSONValue {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .string(let v): return .string(v)
        case .int32(let v): return .object(["$numberInt": .string(String(v))])
        case .int64(let v): return .object(["$numberLong": .string(String(v))])
        case .double(let v): return .object(["$numberDouble": .string(Self.doubleText(v))])
        case .decimal128(let v): return .object(["$numberDecimal": .string(v.stringValue)])
        case .objectId(let v): return .object(["$oid": .string(v.stringValue)])
        case .datetime(let v): return Self.date(v)
        case .binary(let v): return Self.binary(v, subType: "00")
        case .uuid(let v):
            return Self.binary(withUnsafeBytes(of: v.uuid) { Data($0) }, subType: "04")
        case .regex(let v):
            return .object(["$regularExpression": .object([
                "pattern": .string(v.pattern), "options": .string(Self.optionsText(v.options)),
            ])])
        case .timestamp(let v):
            let seconds = max(0, min(Double(UInt32.max), v.timeIntervalSince1970.rounded(.down)))
            return .object(["$timestamp": .object(["t": .int(Int64(seconds)), "i": .int(1)])])
        case .minKey: return .object(["$minKey": .int(1)])
        case .maxKey: return .object(["$maxKey": .int(1)])
        case .array(let items):
            var out: [JSONValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                out.append(try (item ?? .null).canonicalExtendedJSON(path: "\(path)[\(i)]"))
            }
            return .array(out)
        case .document(let document):
            var out: [String: JSONValue] = [:]
            for (key, item) in document {
                let at = path.isEmpty ? key : "\(path).\(key)"
                if Self.wrapperKeys.contains(key) {
                    throw AppError(.badRequest, "'\(at)': a document key may not be '\(key)', an Extended JSON type name")
                }
                out[key] = try (item ?? .null).canonicalExtendedJSON(path: at)
            }
            return .object(out)
        }
    }

    /// Reads canonical or relaxed Extended JSON (relaxed integers become `.int32` when they fit, else `.int64`).
    init(extendedJSON json: JSONValue, path: String = "$") throws(AppError) {
        switch json {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .string(let v): self = .string(v)
        case .int(let v): self = Int32(exactly: v).map(AnyBSON.int32) ?? .int64(v)
        case .double(let v): self = .double(v)
        case .array(let items):
            var out: [AnyBSON?] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try AnyBSON(extendedJSON: item, path: "\(path)[\(i)]")) }
            self = .array(out)
        case .object(let fields):
            if fields.count == 1, let (key, value) = fields.first, Self.wrapperKeys.contains(key) {
                self = try Self.wrapped(key, value, path: path)
                return
            }
            var out: Document = [:]
            for (key, item) in fields { out[key] = try AnyBSON(extendedJSON: item, path: "\(path).\(key)") }
            self = .document(out)
        }
    }

    private static let wrapperKeys: Set<String> = [
        "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal", "$oid", "$date", "$binary", "$uuid",
        "$regularExpression", "$timestamp", "$minKey", "$maxKey", "$undefined", "$symbol",
    ]

    private static func wrapped(_ key: String, _ value: JSONValue, path: String) throws(AppError) -> AnyBSON {
        func bad(_ expected: String) -> AppError {
            AppError(.badRequest, "invalid Extended JSON at \(path): '\(key)' must hold \(expected)")
        }
        func text() throws(AppError) -> String {
            guard case .string(let s) = value else { throw bad("a string") }
            return s
        }
        switch key {
        case "$numberInt":
            guard let v = Int32(try text()) else { throw bad("a 32-bit integer in a string") }
            return .int32(v)
        case "$numberLong":
            guard let v = Int64(try text()) else { throw bad("a 64-bit integer in a string") }
            return .int64(v)
        case "$numberDouble":
            let s = try text()
            switch s {
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default:
                guard let v = Double(s) else { throw bad("a number in a string") }
                return .double(v)
            }
        case "$numberDecimal":
            guard let v = try? Decimal128(string: try text()) else { throw bad("a decimal number in a string") }
            return .decimal128(v)
        case "$oid":
            guard let v = try? ObjectId(string: try text()) else { throw bad("24 hexadecimal digits") }
            return .objectId(v)
        case "$symbol": return .string(try text())
        case "$undefined": return .null
        case "$minKey": return .minKey
        case "$maxKey": return .maxKey
        case "$uuid":
            guard let v = UUID(uuidString: try text()) else { throw bad("a UUID") }
            return .uuid(v)
        case "$date":
            switch value {
            case .object(let inner):
                guard case .string(let ms)? = inner["$numberLong"], let v = Int64(ms) else { throw bad("{\"$numberLong\": …}") }
                return .datetime(Date(timeIntervalSince1970: Double(v) / 1000))
            case .int(let v): return .datetime(Date(timeIntervalSince1970: Double(v) / 1000))
            case .string(let iso):
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                if let date = formatter.date(from: iso) { return .datetime(date) }
                formatter.formatOptions = [.withInternetDateTime]
                guard let date = formatter.date(from: iso) else { throw bad("an ISO 8601 date") }
                return .datetime(date)
            default: throw bad("milliseconds or an ISO 8601 date")
            }
        case "$binary":
            guard case .object(let inner) = value, case .string(let base64)? = inner["base64"],
                case .string(let subType)? = inner["subType"], let data = Data(base64Encoded: base64)
            else { throw bad("{\"base64\": …, \"subType\": …}") }
            if subType == "04", data.count == 16 {
                let bytes = [UInt8](data)
                return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14],
                                         bytes[15])))
            }
            return .binary(data)
        case "$regularExpression":
            guard case .object(let inner) = value, case .string(let pattern)? = inner["pattern"] else {
                throw bad("{\"pattern\": …, \"options\": …}")
            }
            var options: NSRegularExpression.Options = []
            if case .string(let flags)? = inner["options"] {
                if flags.contains("i") { options.insert(.caseInsensitive) }
                if flags.contains("m") { options.insert(.anchorsMatchLines) }
                if flags.contains("s") { options.insert(.dotMatchesLineSeparators) }
                if flags.contains("x") { options.insert(.allowCommentsAndWhitespace) }
            }
            guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else {
                throw bad("a regular expression Foundation can compile")
            }
            return .regex(regex)
        case "$timestamp":
            guard case .object(let inner) = value, case .int(let t)? = inner["t"] else { throw bad("{\"t\": …, \"i\": …}") }
            return .timestamp(Date(timeIntervalSince1970: Double(t)))
        default:
            throw bad("a known Extended JSON value")
        }
    }

    private static func date(_ date: Date) -> JSONValue {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        return .object(["$date": .object(["$numberLong": .string(String(ms))])])
    }

    private static func binary(_ data: Data, subType: String) -> JSONValue {
        .object(["$binary": .object(["base64": .string(data.base64EncodedString()), "subType": .string(subType)])])
    }

    /// A double as text that reads back to the same value (`1.0`, `-0.0`, `NaN`, `Infinity`).
    private static func doubleText(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v < 0 ? "-Infinity" : "Infinity" }
        return "\(v)"
    }

    private static func optionsText(_ options: NSRegularExpression.Options) -> String {
        var flags = ""
        if options.contains(.caseInsensitive) { flags += "i" }
        if options.contains(.anchorsMatchLines) { flags += "m" }
        if options.contains(.dotMatchesLineSeparators) { flags += "s" }
        if options.contains(.allowCommentsAndWhitespace) { flags += "x" }
        return flags
    }
}
