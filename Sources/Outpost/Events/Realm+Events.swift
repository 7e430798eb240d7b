extension Realm {
    /// Records events for this Realm, or nil when the Realm file was never opened with an
    /// ``Configuration/eventConfiguration`` in this process.
    ///
    /// ```swift
    /// let realm = try! Realm(configuration: config)
    /// let events = realm.events!
    /// ```
    public var events: Events? {
        instance.eventRecorder.map { Events(context: $0.context) }
    }
}
