/// Told of the objects the app reads through a Realm instance, for an audit of reads (the event library records them
/// in its scopes).
///
/// Reads are the hottest paths of the database, so an instance has one read observer at most, in a plain optional
/// (``RealmInstance/readObserver``) that every read path tests first: while none is attached, a read costs one nil
/// test. A commit observer that also conforms to this protocol becomes the instance's read observer when it is
/// attached (``RealmInstance/attach(_:first:)``).
protocol ReadObserver: AnyObject {
    /// The app looked the object at `rowid` of `table` up by its primary key.
    func didReadObject(_ table: TableInfo, rowid: Int64, in instance: RealmInstance)

    /// Reading property `propertyIndex` of `row` gave `value`, an object: a to-one link was followed.
    func didFollowLink(from row: ManagedRow, propertyIndex: Int, to value: _StoredValue)
}
