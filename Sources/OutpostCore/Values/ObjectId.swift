import Foundation

/// A 12-byte MongoDB/Realm object identifier.
///
/// The bytes are a 4-byte big-endian timestamp in seconds since 1970, 5 bytes that are random per
/// process and a 3-byte big-endian counter that starts at a random value. Ids made by ``generate()``
/// therefore sort by creation time (to the second), and within one process by creation order.
///
/// Ordering is the byte-wise lexicographic order of the 12 bytes (as `memcmp` compares them),
/// which is also the order of the hex ``stringValue``s.
public struct ObjectId: Hashable, Sendable, Comparable {
    /// The 12 bytes in their storage order: each element holds four bytes exactly as they sit in
    /// memory, so `withUnsafeBytes(of: storage)` yields the id's bytes without copying.
    private var storage: (UInt32, UInt32, UInt32)

    /// The all-zero id `000000000000000000000000`, as Realm's `ObjectId()`.
    ///
    /// Use ``generate()`` for a new unique id.
    public init() {
        storage = (0, 0, 0)
    }

    /// Creates an id from its 12 bytes.
    ///
    /// - Throws: ``ValueError`` with code ``ValueError/Code/invalidObjectIdBytes`` unless there are
    ///   exactly 12 bytes.
    public init(bytes: some Collection<UInt8>) throws {
        try Self.checkByteCount(bytes.count)
        self.init()
        Swift.withUnsafeMutableBytes(of: &storage) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
    }

    /// Creates an id by letting `body` write its 12 bytes (they start as zeros), with no intermediate buffer.
    package init(writingBytes body: (UnsafeMutableRawBufferPointer) -> Void) {
        self.init()
        Swift.withUnsafeMutableBytes(of: &storage, body)
    }

    /// Creates an id from its 12 bytes in an array: the same as the generic initializer, copied in one step (the
    /// generic one, called from another module, reads the collection element by element through its witnesses).
    public init(bytes: [UInt8]) throws {
        try Self.checkByteCount(bytes.count)
        self.init()
        Swift.withUnsafeMutableBytes(of: &storage) { raw in
            bytes.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
    }

    private static func checkByteCount(_ count: Int) throws(ValueError) {
        guard count == 12 else {
            throw ValueError(code: .invalidObjectIdBytes, message: "Invalid ObjectId bytes: expected 12 bytes, got \(count)")
        }
    }

    /// Creates an id from a timestamp, machine id and process id, as Realm's initializer of the same
    /// name: the low 3 bytes of `machineId` and the low 2 bytes of `processId` fill bytes 4–8 in
    /// little-endian order (as realm-core lays them out), and the 3-byte counter comes from the shared
    /// counter that ``generate()`` uses.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = Self.seconds(of: timestamp)
        let counter = ObjectIdGenerator.nextCounter()
        var raw = [UInt8](repeating: 0, count: 12)
        Self.putBigEndian(seconds, into: &raw, at: 0, count: 4)
        for i in 0..<3 { raw[4 + i] = UInt8(truncatingIfNeeded: machineId >> (8 * i)) }
        for i in 0..<2 { raw[7 + i] = UInt8(truncatingIfNeeded: processId >> (8 * i)) }
        Self.putBigEndian(counter, into: &raw, at: 9, count: 3)
        try! self.init(bytes: raw)
    }

    /// The 12 bytes of the id, most significant (timestamp) first.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the id's 12 bytes, without copying them (for storing as a BLOB).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage, body)
    }

    /// The creation time stored in the first four bytes, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(UInt32(bigEndian: storage.0)))
    }

    public static func == (lhs: ObjectId, rhs: ObjectId) -> Bool {
        lhs.storage.0 == rhs.storage.0 && lhs.storage.1 == rhs.storage.1 && lhs.storage.2 == rhs.storage.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
        hasher.combine(storage.2)
    }

    /// Byte-wise lexicographic order, the same as comparing the 12 bytes with `memcmp`.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        let l = (UInt32(bigEndian: lhs.storage.0), UInt32(bigEndian: lhs.storage.1), UInt32(bigEndian: lhs.storage.2))
        let r = (UInt32(bigEndian: rhs.storage.0), UInt32(bigEndian: rhs.storage.1), UInt32(bigEndian: rhs.storage.2))
        return l < r
    }

    /// Seconds since 1970 as ObjectIds store them: truncated to a whole second, wrapped to 32 bits.
    static func seconds(of date: Date) -> UInt32 {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, abs(interval) < 9.2e18 else { return 0 }
        return UInt32(truncatingIfNeeded: Int64(interval))
    }

    static func putBigEndian(_ value: UInt32, into raw: inout [UInt8], at offset: Int, count: Int) {
        for i in 0..<count {
            raw[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - i)))
        }
    }
}
