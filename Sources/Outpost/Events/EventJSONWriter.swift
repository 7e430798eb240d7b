import Foundation
import OutpostCore

/// Builds event JSON text as UTF-8 bytes: the same text as `JSONValue.write(to:)`, without a `String` append per
/// token. Used by ``EventSerializer`` and, for rows of plain scalars, by the tables' ``RowJSONWriter``.
///
/// The bytes live in memory the writer manages itself (not an `Array`): a write event of 1,000 objects is some
/// 20,000 small appends, and an array's uniqueness check and generic append on each were a fifth of the
/// serialization. Not copyable, so the memory has one owner.
struct EventJSONWriter: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 0) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.update(from: start, count: count)
        start.deallocate()
        start = newStart
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    /// Text written as it is (keys already escaped, literals).
    @inline(__always)
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// A JSON value, through `JSONValue.write(to:)`.
    mutating func append(_ value: JSONValue) {
        var text = ""
        value.write(to: &text)
        append(text)
    }

    /// A string as a JSON string literal, escaped as `JSONValue.writeString`.
    mutating func appendString(_ value: String) {
        var value = value
        let plain = value.withUTF8 { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            append(UInt8(ascii: "\""))
            append(utf8)
            append(UInt8(ascii: "\""))
            return true
        }
        if !plain {
            var text = ""
            JSONValue.writeString(value, to: &text)
            append(text)
        }
    }

    /// An integer in decimal, as `String(value)`.
    mutating func appendInt(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC, milliseconds truncated (without quotes).
    mutating func appendTimestamp(_ date: Date) {
        let totalMillis = Self.timestampMillis(date)
        var seconds = totalMillis / 1000
        var millis = totalMillis % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        // The civil date of the day (proleptic Gregorian, as `gmtime_r`, without its time zone lock).
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = Self.civil(days: days)
        guard (0...9999).contains(year) else {
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            append(String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900,
                          Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                          Int(parts.tm_sec), Int(millis)))
            return
        }
        let hour = Int(secondOfDay / 3600), minute = Int(secondOfDay / 60 % 60), second = Int(secondOfDay % 60)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            func digits(_ value: Int, _ count: Int, at offset: Int) {
                var rest = value
                for i in stride(from: offset + count - 1, through: offset, by: -1) {
                    buffer[i] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            digits(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            digits(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            digits(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            digits(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            digits(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            digits(Int(millis), 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            append(UnsafeBufferPointer(buffer))
        }
    }

    /// Year, month (1–12) and day (1–31) of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// The milliseconds since 1970 that ``appendTimestamp(_:)`` writes (equal for two dates exactly when their
    /// texts are).
    @inline(__always)
    static func timestampMillis(_ date: Date) -> Int64 {
        // The tiny bias keeps values like 1.678 s (stored as 1.67799999…) at 678 ms.
        Int64((date.timeIntervalSince1970 * 1000 + 1e-4).rounded(.down))
    }

    /// `"<24 lowercase hex digits>"` of an ObjectId's 12 bytes, as `ObjectId.stringValue`.
    mutating func appendObjectIdHex(_ id: [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            for (i, byte) in id.prefix(12).enumerated() {
                buffer[1 + 2 * i] = Self.hexDigit(byte >> 4)
                buffer[2 + 2 * i] = Self.hexDigit(byte & 0xF)
            }
            buffer[25] = UInt8(ascii: "\"")
            append(UnsafeBufferPointer(buffer))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// Event JSON from a ``RowJSONWriter``: each column as `EventSerializer.json(_:)` writes its value (dates as UTC
/// timestamps; ObjectIds, decimals and UUIDs as strings), a non-null `Data` left out.
///
/// Hot path (read and write events, see ``RowJSONWriter``): integers, booleans, strings, ObjectIds and dates are
/// written straight from the column; the rarer types go through their `Value`.
extension EventJSONWriter: RowJSONOutput {
    mutating func appendByte(_ byte: UInt8) {
        append(byte)
    }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(bytes)
    }

    static func omitsField(_ raw: SQLiteValue, _ type: PropertyType) -> Bool {
        if type == .data, case .blob = raw { return true }
        return false
    }

    mutating func appendColumn(_ raw: SQLiteValue, _ type: PropertyType) {
        switch (type, raw) {
        case (_, .null):
            append("null")
        case (.int, .integer(let v)):
            appendInt(v)
        case (.bool, .integer(let v)):
            append(v != 0 ? "true" : "false")
        case (.string, .text(let v)):
            appendString(v)
        case (.objectId, .blob(let bytes)) where bytes.count == 12:
            appendObjectIdHex(bytes)
        case (.date, .real(let v)):
            append(UInt8(ascii: "\""))
            appendTimestamp(Date(timeIntervalSinceReferenceDate: v))
            append(UInt8(ascii: "\""))
        default:
            append(EventSerializer.json(raw.value(type: type)) ?? .null)
        }
    }
}
