import Foundation

/// Conversions between `Date` and Realm's timestamp literals: `T<seconds>:<nanoseconds>` (since
/// 1970, both parts with the same sign) and `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (UTC).
enum QueryTimestamp {
    /// Seconds between 1970-01-01 and 2001-01-01, Foundation's reference date.
    private static let referenceOffset: Int64 = 978_307_200

    static func date(seconds: Int64, nanoseconds: Int64) -> Date {
        let (sinceReference, overflow) = seconds.subtractingReportingOverflow(referenceOffset)
        let whole = overflow ? Double(seconds) - Double(referenceOffset) : Double(sinceReference)
        return Date(timeIntervalSinceReferenceDate: whole + Double(nanoseconds) / 1e9)
    }

    /// The `(seconds, nanoseconds)` since 1970 of a date, nanoseconds rounded and of the same sign.
    static func components(of date: Date) -> (seconds: Int64, nanoseconds: Int64) {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 9e18 else {
            return (interval < 0 ? Int64.min : Int64.max, 0)
        }
        let whole = interval.rounded(.down)
        var seconds = Int64(whole) + referenceOffset
        var nanoseconds = Int64(((interval - whole) * 1e9).rounded())
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        if seconds < 0 && nanoseconds > 0 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        return (seconds, nanoseconds)
    }

    /// The UTC date of a calendar date and time, or nil if a field is out of range.
    static func date(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, nanoseconds: Int64
    ) -> Date? {
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0..<1_000_000_000).contains(nanoseconds), abs(year) < 1_000_000
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return date(seconds: days * 86_400 + hour * 3_600 + minute * 60 + second, nanoseconds: nanoseconds)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (eras of 400 years).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
