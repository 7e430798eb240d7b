/// A default `Identifiable` identity for Realm objects (`class Dog: Object, ObjectKeyIdentifiable`), as SwiftUI's
/// `ForEach` and `List` need: every instance of one managed object has the same `id`.
public protocol ObjectKeyIdentifiable: Identifiable {
    /// The stable identity of the object.
    var id: UInt64 { get }
}

/// The name Realm deprecated for ``ObjectKeyIdentifiable``.
@available(*, deprecated, renamed: "ObjectKeyIdentifiable")
public typealias ObjectKeyIdentifable = ObjectKeyIdentifiable

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The same for every instance of a managed object (its class and row), for as long as the object exists; an
    /// unmanaged object's is its instance's identity until it is added (Realm's identity changes there too).
    public var id: UInt64 {
        guard let row = _row else { return UInt64(UInt(bitPattern: ObjectIdentifier(self))) }
        // The class in the top 24 bits (FNV-1a of its name), the row in the 40 below; the top bit set, which an
        // unmanaged object's address never has.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in row.table.className.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return (1 << 63) | ((hash & 0x7f_ffff) << 40) | (UInt64(bitPattern: row.rowid) & 0xff_ffff_ffff)
    }
}
