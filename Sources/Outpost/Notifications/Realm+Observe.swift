import Foundation

extension Realm {
    /// Registers a block called after each commit: synchronously for this Realm's own commits
    /// (`.didChange`), and on this thread's run loop after another thread or process commits
    /// (`.didChange` once this Realm has refreshed, or `.refreshRequired` when `autorefresh` is off).
    ///
    /// - Returns: A token; notifications stop when it is invalidated or released.
    public func observe(_ block: @escaping (_ notification: Realm.Notification, _ realm: Realm) -> Void)
        -> NotificationToken
    {
        instance.verifyAccess()
        instance.verifyNotificationsSupported()
        let state = ObservationState()
        let target = WeakInstance(instance)
        instance.notifier.addRealmObserver(state: state) { [unowned instance] notification in
            block(notification, Realm(instance: instance))
        }
        let scheduler = instance.scheduler
        FileWatcher.shared.update(path: instance.path)
        return NotificationToken(state: state) {
            if let scheduler {
                scheduler.schedule { target.instance?.notifier.remove(state) }
            } else {
                target.instance?.notifier.remove(state)
            }
        }
    }
}
