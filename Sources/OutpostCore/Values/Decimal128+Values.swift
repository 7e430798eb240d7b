import Foundation

extension Decimal128 {
    /// The number, as Realm's `Decimal128(number:)`: integers exactly, `Float` and `Double` by their shortest decimal
    /// text (`2.2 as Float` is 2.2, see `init(_: Double)`), `NSDecimalNumber` by its digits.
    public init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = Self.parsedOrNaN(decimal.stringValue)
            return
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"): self.init(number.doubleValue)
        case UInt8(ascii: "f"): self.init(float: number.floatValue)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): self.init(number.uint64Value)
        default: self.init(number.int64Value)
        }
    }

    /// Converts an integer of any width, `Bool`, `Float`, `Double`, `String`, `NSNumber`, `Decimal` or `Decimal128`,
    /// as Realm's `Decimal128(value:)`. Text that is not a number gives NaN, as does nil or `NSNull` (Realm's null
    /// decimal, a signaling NaN); any other type traps, as in Realm.
    public init(value: Any) {
        switch value {
        case let v as Decimal128: self = v
        case let v as String: self = Self.parsedOrNaN(v)
        case let v as Decimal: self = Self.parsedOrNaN(v.description)
        case let v as NSNumber: self.init(number: v)
        case let v as Double: self.init(v)
        case let v as Float: self.init(float: v)
        case let v as Bool: self.init(v ? 1 : 0)
        case let v as any BinaryInteger:
            if let signed = Int64(exactly: v) {
                self.init(signed)
            } else if let unsigned = UInt64(exactly: v) {
                self.init(unsigned)
            } else {
                self = .nan
            }
        case is NSNull: self = .signalingNaN  // Realm's null decimal: a NaN that reports itself signaling
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value {
                    self.init(value: wrapped)
                } else {
                    self = .signalingNaN
                }
                return
            }
            fatalError("Cannot convert value '\(value)' of type '\(type(of: value))' to decimal128")
        }
    }

    /// A `Float` by its own shortest decimal text, so `2.2 as Float` is 2.2 rather than 2.2000000476837158.
    init(float: Float) {
        // Text of at most 9 digits survives the trip through `Double` unchanged.
        self.init(Double(float.description) ?? Double(float))
    }

    private static func parsedOrNaN(_ text: String) -> Decimal128 {
        (try? Decimal128(string: text)) ?? .nan
    }
}
