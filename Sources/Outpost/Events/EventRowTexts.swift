import Foundation

/// The JSON text of rows captured as old values (classes with an ``EventRowFormat``), written on the event worker
/// in batches while the write transaction goes on, so that the write event's serialization at commit only adds the
/// new values around them. Each row's text is exactly `EventRowFormat.write` of its values.
final class EventRowTexts: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is only touched under `lock`; the format is immutable.
    let format: EventRowFormat
    private let lock = NSLock()
    private var writer = EventJSONWriter(capacity: 16 * 1024)
    private var ranges: [Int64: Range<Int>] = [:]

    init(format: EventRowFormat) {
        self.format = format
    }

    /// Writes a batch of rows (called on the event worker).
    func write(_ rows: [(rowid: Int64, values: [SQLiteValue])]) {
        lock.withLock {
            ranges.reserveCapacity(ranges.count + rows.count)
            for row in rows {
                let start = writer.bytes.count
                format.write(row.values, to: &writer)
                ranges[row.rowid] = start..<writer.bytes.count
            }
        }
    }

    /// What has been written so far: the bytes and each row's range in them.
    func written() -> (bytes: [UInt8], ranges: [Int64: Range<Int>]) {
        lock.withLock { (writer.bytes, ranges) }
    }
}
