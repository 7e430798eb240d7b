import Foundation

/// One Realm instance's bookkeeping for read events: which followed properties already had their targets captured
/// (so following every element of a list captures the list once), and whether an event capture is running (so a
/// ``CustomEventRepresentable`` reading links while being serialized records nothing).
struct EventReadState {
    /// The (scope generation, version, write counter) the captured set belongs to; a new scope, a new version or a
    /// write starts it over.
    private var generation: (scopes: Int, version: Int64, writes: Int) = (-1, -1, -1)
    private var captured: Set<EventLinkProperty> = []
    /// True while an object is being captured for an event.
    var isCapturing = false

    /// Whether the targets of `property` still need capturing at this generation; marks them captured.
    mutating func needsCapture(_ property: EventLinkProperty, scopes: Int, version: Int64, writes: Int) -> Bool {
        if generation != (scopes, version, writes) {
            generation = (scopes, version, writes)
            captured.removeAll()
        }
        return captured.insert(property).inserted
    }
}
