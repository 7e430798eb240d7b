import Foundation
import OutpostCore

/// A type that has a BSON representation, as in Realm Swift: the plain Swift types ``AnyBSON`` wraps.
///
/// Partition values (`user.configuration(partitionValue:)`) and ``AnyBSON/init(_:)-generic`` take any `BSON`.
public protocol BSON: Equatable {}

extension Int: BSON {}
extension Int32: BSON {}
extension Int64: BSON {}
extension Bool: BSON {}
extension Double: BSON {}
extension String: BSON {}
extension Data: BSON {}
extension Date: BSON {}
extension Decimal128: BSON {}
extension ObjectId: BSON {}
extension UUID: BSON {}
extension NSNull: BSON {}
extension NSRegularExpression: BSON {}
extension Dictionary: BSON where Key == String, Value == AnyBSON? {}
extension Array: BSON where Element == AnyBSON? {}

/// The BSON value that compares greater than every other (Realm's `MaxKey`); `AnyBSON(MaxKey())` is `.maxKey`.
public struct MaxKey: BSON, Hashable, Sendable {
    public init() {}
}

/// The BSON value that compares less than every other (Realm's `MinKey`); `AnyBSON(MinKey())` is `.minKey`.
public struct MinKey: BSON, Hashable, Sendable {
    public init() {}
}

/// A BSON document: field names to optional values, as in Realm Swift (`[String: AnyBSON?]`).
///
/// `import Outpost` makes `Document` mean this dictionary. OutpostCore's own `Document` struct (the server's and
/// the sync protocol's document model) stays reachable as `OutpostCore.Document`; a file that imports both
/// `Outpost` and `OutpostCore` must spell out which one it means.
public typealias Document = [String: AnyBSON?]
