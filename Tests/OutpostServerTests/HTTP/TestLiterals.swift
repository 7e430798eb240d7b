import OutpostCore

// Literals for expected JSON and documents in these tests. (If OutpostCore adopts these conformances itself, delete
// this file.)
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension Value: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
