import Foundation

/// Where properties of managed objects feed the event library: an object read through a property (a to-one link, a
/// collection element, an `AnyRealmValue`) is a read of that object, tagged with the parent and property. The
/// collections call these; a to-one property's `read()` tells the instance's ``ReadObserver``. Both test the read
/// observer first, so a read costs a nil test while events are off.
extension _PropertyAccessor {
    /// Records following this property to `value` when it is an object and a scope is active.
    @inline(__always)
    func eventRecordLinkRead(_ value: _StoredValue) {
        guard case .object = value, row.realm.readObserver != nil, row.realm.isRecordingEvents else { return }
        row.realm.eventRecordLinkReads(parent: row, propertyIndex: propertyIndex, values: [value])
    }

    /// Records following this property to each object among `values` (in order) when a scope is active.
    @inline(__always)
    func eventRecordLinkReads(_ values: @autoclosure () -> [_StoredValue]) {
        guard row.realm.readObserver != nil, row.realm.isRecordingEvents else { return }
        row.realm.eventRecordLinkReads(parent: row, propertyIndex: propertyIndex, values: values())
    }
}
