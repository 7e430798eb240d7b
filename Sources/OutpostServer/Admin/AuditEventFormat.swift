import Foundation
import OutpostCore

/// How the admin API writes indexed audit events: as the search's JSON objects, as CSV rows, and times as ISO 8601
/// with milliseconds.
struct AuditEventFormat: Sendable {
    /// The partition key field the server adds to events of a partition-based app: not shown as metadata.
    var partitionKey: String?

    static let csvHeader = "id,timestamp,activity,type,user,objects,data\r\n"

    /// `{"id", "timestamp", "activity", "type", "user", "metadata", "data", "objects"}`; `data` parsed when it is JSON,
    /// as its text otherwise; `metadata` the event's string fields other than the fixed ones. A record whose document
    /// is gone has `data` null and no metadata.
    func json(_ record: AuditEventRecord) -> JSONValue {
        let entry = record.entry
        let document = record.text.flatMap { try? Document(extendedJSONText: $0) }
        var metadata: [String: JSONValue] = [:]
        for (key, value) in document?.fields ?? [:]
        where !AuditExtractor.fixedFields.contains(key) && key != partitionKey {
            if case .string(let text) = value { metadata[key] = .string(text) }
        }
        var data = JSONValue.null
        if case .string(let text)? = document?["data"] { data = JSONValue.parse(text) ?? .string(text) }
        return .object([
            "id": .string(entry.eventId), "timestamp": .string(Self.iso8601(milliseconds: entry.timestamp)),
            "activity": .string(entry.activity), "type": entry.eventType.map(JSONValue.string) ?? .null,
            "user": entry.userId.map(JSONValue.string) ?? .null, "metadata": .object(metadata), "data": data,
            "objects": Self.objectsJSON(entry.objects),
        ])
    }

    /// One CSV row (RFC 4180: every field quoted when it holds a comma, a quote or a line break; CRLF at the end):
    /// `objects` as the JSON array the search answers, `data` as stored.
    func csvRow(_ record: AuditEventRecord) -> String {
        let entry = record.entry
        var data = ""
        if let text = record.text, let document = try? Document(extendedJSONText: text),
            case .string(let s)? = document["data"]
        {
            data = s
        }
        let fields = [
            entry.eventId, Self.iso8601(milliseconds: entry.timestamp), entry.activity, entry.eventType ?? "",
            entry.userId ?? "", entry.objects.isEmpty ? "" : Self.objectsJSON(entry.objects).text, data,
        ]
        return fields.map(Self.csvField).joined(separator: ",") + "\r\n"
    }

    static func objectsJSON(_ objects: [AuditObjectKey]) -> JSONValue {
        .array(objects.map { .object(["class": .string($0.className), "pk": .string($0.primaryKey)]) })
    }

    static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `2024-01-02T03:04:05.678Z`, from milliseconds since 1970: exact (no trip through a `Double` of seconds) and
    /// without a formatter per event (an export writes one per row). The date is the proleptic Gregorian calendar's.
    static func iso8601(milliseconds: Int64) -> String {
        let (days, dayMillis) = floorDivision(milliseconds, 86_400_000)
        // Days since 1970 → year, month, day (the civil calendar in 400-year eras, counted from March 1st).
        let shifted = days + 719_468
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ n: Int64, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let time = dayMillis / 1000
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(time / 3600, 2)):"
            + "\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2)).\(padded(dayMillis % 1000, 3))Z"
    }

    /// Quotient and remainder with the quotient rounded down (the remainder is never negative).
    private static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let (q, r) = a.quotientAndRemainder(dividingBy: b)
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
