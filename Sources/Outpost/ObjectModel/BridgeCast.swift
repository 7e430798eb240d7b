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
    if let target = T.self as? any _StorableValue.Type, let stored = bridgedStoredValue(x),
        let loaded = target._load(stored), let value = loaded as? T
    {
        return value
    }
    fatalError("Could not convert value '\(x)' to type '\(T.self)'")
}

/// Realm's conversion of a Swift value for Objective-C: Outpost keeps Swift values, so the value itself.
public func dynamicBridgeCast<T>(fromSwift x: T) -> Any { x }

/// The stored form of a value that may have crossed to an object (`as AnyObject` makes numbers `NSNumber`s and
/// strings `NSString`s on Linux, as on Apple platforms): an integral number as an integer, another as a double.
private func bridgedStoredValue(_ x: Any) -> _StoredValue? {
    if let value = x as? any _StorableValue { return value._store() }
    if let string = x as? String { return .string(string) }
    if let number = x as? NSNumber {
        let double = number.doubleValue
        return double.rounded() == double && abs(double) < 9.0e15 ? .int(number.int64Value) : .double(double)
    }
    return nil
}
