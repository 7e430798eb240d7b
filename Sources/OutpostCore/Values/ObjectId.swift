import Foundation

/// A 12-byte MongoDB/Realm ObjectId. (Placeholder: being completed.)
public struct ObjectId: Hashable, Sendable, Comparable {
    public var bytes: (UInt32, UInt32, UInt32)
    public static func == (a: ObjectId, b: ObjectId) -> Bool { a.bytes == b.bytes }
    public func hash(into h: inout Hasher) { h.combine(bytes.0); h.combine(bytes.1); h.combine(bytes.2) }
    public static func < (a: ObjectId, b: ObjectId) -> Bool { a.bytes < b.bytes }
}
