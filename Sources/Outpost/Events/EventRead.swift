import Foundation
import OutpostCore

/// A read recorded while a scope was active: objects of one class at one version (reference §2.1).
struct EventRead: Sendable {
    var className: String
    /// The history version of the instance that read (the version before the open write transaction, if any).
    var version: Int64
    /// The objects as captured, by rowid; objects that did not exist at `version` are missing.
    var objects: [Int64: EventObject]
    /// The rowids read, in reading order.
    var order: [Int64]
    /// A query evaluation (every match) rather than one object.
    var isQuery: Bool
    /// Set when the object was reached through a link or a collection element of another object.
    var link: EventLinkAccess?
}

/// Following a link: reading an object through a property of a parent object (a to-one link, an element of a list,
/// set or map, or an `AnyRealmValue` holding an object).
struct EventLinkAccess: Sendable {
    /// The parent's property at the read's version.
    var property: EventLinkProperty
    /// The objects the property linked to when it was followed, for showing it in full (reference §4.3). Nil when
    /// an earlier access recorded in every active scope already captured them.
    var targets: [Value: EventLinkTarget]?
}

/// One property of one object at one version: what a link access expands.
struct EventLinkProperty: Hashable, Sendable {
    var version: Int64
    var className: String
    var rowid: Int64
    var name: String
}

/// An object a followed property links to, keyed by its link value (class and primary key).
struct EventLinkTarget: Sendable {
    var className: String
    var rowid: Int64
    var object: EventObject
}

/// The objects a read event captured and the state of the instance they belong to: an iterator that recorded the
/// read makes its objects from these rows while the instance still reads the same values, instead of loading them
/// again.
struct EventCapturedRows {
    var objects: [Int64: EventObject]
    var version: Int
    var writeCounter: Int
    var epoch: Int
}
