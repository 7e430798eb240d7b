/// An object class that chooses how its objects appear in events, as Realm Swift's `CustomEventRepresentable`.
///
/// Whenever an object of a conforming class is written into an event (read values, insertions, deletions, old and
/// new values), the string returned by ``customEventRepresentation()`` is parsed as JSON and used instead of the
/// default serialization. A string that is not valid JSON fails the commit of the scope with an error, and nothing
/// of that scope is stored.
///
/// The method is called on the thread that records the event, with the object positioned at the recorded state;
/// it must only read the object's own properties.
public protocol CustomEventRepresentable {
    /// The object as JSON text.
    func customEventRepresentation() -> String
}
