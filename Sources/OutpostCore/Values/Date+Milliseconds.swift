import Foundation

extension Date {
    /// Milliseconds since 1970, as Extended JSON's `{"$date": {"$numberLong": …}}` holds them: truncated, except that
    /// a date that is exactly some whole millisecond (the date `Date(timeIntervalSince1970: Double(ms) / 1000)`
    /// gives) is that millisecond.
    ///
    /// Plain truncation of `timeIntervalSince1970 * 1000` loses a millisecond for many dates read from
    /// milliseconds: `Date` keeps seconds since 2001 as a `Double`, so 1970-01-01T00:00:06.919Z comes back as
    /// 6918.99999… ms, and about 0.6 % of the milliseconds of this century (16 % of those between 1970 and 2001)
    /// did not survive a round trip through a stored document.
    ///
    /// Dates beyond what 64 bits of milliseconds hold (about 292 million years) give `Int64.max` or `Int64.min`
    /// instead of trapping.
    package var millisecondsSince1970: Int64 {
        let exact = timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        let milliseconds = nearest != exact && Date(timeIntervalSince1970: nearest / 1000) == self
            ? nearest : exact.rounded(.down)
        guard let value = Int64(exactly: milliseconds) else { return exact < 0 ? .min : .max }
        return value
    }
}
