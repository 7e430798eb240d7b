import Foundation
import OutpostCore

/// What `ValueConversion` leaves to its caller when it reads an object's value (a dictionary, an array or another
/// object): how bad input is reported and where the objects that nested values describe are made. `create` fails its
/// write transaction and inserts nested objects; `init(value:)` traps, as Realm does, and keeps them unmanaged.
protocol ObjectInputContext {
    /// Whether values are converted to their property's type here (`init(value:)`, which stores them as they are);
    /// `create` converts them when it encodes the row.
    var convertsTypes: Bool { get }
    /// Reports bad input with Realm's message.
    func fail(_ message: String)
    /// The object a nested value (dictionary, array or an object of another class) describes for `property`, a link
    /// or a collection of objects; nil after `fail`.
    func object(from value: Any, for property: Property) -> ObjectBase?
}
