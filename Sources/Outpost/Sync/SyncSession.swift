import Foundation

/// The sync session of one synced Realm file (`realm.syncSession`).
public final class SyncSession: @unchecked Sendable {
    init() {}
}
