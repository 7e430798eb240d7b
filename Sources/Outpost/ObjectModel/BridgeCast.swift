import Foundation

/// Realm's conversion of a value that went through Objective-C (key-value coding results, `object(forKey:)`) to
/// `T`. Outpost's values stay Swift values, so this is a cast that also takes `NSNull` as nil for an optional `T`
/// and converts between the storable types as `NSNumber` did (`Int` to `Int8`, `Int` to `Double`); anything else
/// traps with Realm's text.
public func dynamicBridgeCast<T>(fromObjectiveC x: Any) -> T {
    if let value = x as? T { return value }
    if x is NSNull, let optional = T.self as? any ExpressibleByNilLiteral.Type {
        return optional.init(nilLiteral: ()) as! T
    }
    if let target = T.self as? any _StorableValue.Type, let source = x as? any _StorableValue,
        let loaded = target._load(source._store()), let value = loaded as? T
    {
        return value
    }
    fatalError("Could not convert value '\(x)' to type '\(T.self)'")
}

/// Realm's conversion of a Swift value for Objective-C: Outpost keeps Swift values, so the value itself.
public func dynamicBridgeCast<T>(fromSwift x: T) -> Any { x }
