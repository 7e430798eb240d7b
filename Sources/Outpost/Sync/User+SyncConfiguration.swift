import Foundation
import OutpostCore

extension User {
    /// A configuration for a Partition-Based Sync Realm with this partition value (string, int, ObjectId, UUID or
    /// nil). Its file is `<user's sync directory>/<partition>.realm`.
    public func configuration<T: BSON>(
        partitionValue: T, clientResetMode: ClientResetMode = .recoverUnsyncedChanges(),
        cancelAsyncOpenOnNonFatalErrors: Bool = false
    ) -> Realm.Configuration {
        configuration(partitionValue: AnyBSON(partitionValue), clientResetMode: clientResetMode,
                      cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors)
    }

    /// A configuration for a Partition-Based Sync Realm; `.null` for the null partition.
    public func configuration(
        partitionValue: AnyBSON, clientResetMode: ClientResetMode = .recoverUnsyncedChanges(),
        cancelAsyncOpenOnNonFatalErrors: Bool = false
    ) -> Realm.Configuration {
        var configuration = Realm.Configuration()
        configuration.fileURL = syncDirectory.appendingPathComponent(
            SyncFileNames.partitionFileName(SyncValues.value(of: partitionValue)))
        configuration.syncConfiguration = SyncConfiguration(
            user: self, partitionValue: partitionValue, enableFlexibleSync: false, clientResetMode: clientResetMode,
            cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors)
        return configuration
    }

    /// A configuration for this user's flexible sync Realm (`flx_sync_default.realm`).
    public func flexibleSyncConfiguration(
        clientResetMode: ClientResetMode = .recoverUnsyncedChanges(), cancelAsyncOpenOnNonFatalErrors: Bool = false
    ) -> Realm.Configuration {
        var configuration = Realm.Configuration()
        configuration.fileURL = syncDirectory.appendingPathComponent("flx_sync_default.realm")
        configuration.syncConfiguration = SyncConfiguration(
            user: self, partitionValue: nil, enableFlexibleSync: true, clientResetMode: clientResetMode,
            cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors)
        return configuration
    }

    /// A flexible sync configuration whose `initialSubscriptions` run when the file is created (or on every open
    /// with `rerunOnOpen`).
    public func flexibleSyncConfiguration(
        clientResetMode: ClientResetMode = .recoverUnsyncedChanges(), cancelAsyncOpenOnNonFatalErrors: Bool = false,
        initialSubscriptions: @escaping (SyncSubscriptionSet) -> Void, rerunOnOpen: Bool = false
    ) -> Realm.Configuration {
        var configuration = flexibleSyncConfiguration(
            clientResetMode: clientResetMode, cancelAsyncOpenOnNonFatalErrors: cancelAsyncOpenOnNonFatalErrors)
        configuration.syncConfiguration?.initialSubscriptions = initialSubscriptions
        configuration.syncConfiguration?.rerunOnOpen = rerunOnOpen
        return configuration
    }
}

/// File names of synced Realms.
enum SyncFileNames {
    /// A file name for a partition value: its Extended JSON text, with characters unsafe in file names escaped.
    static func partitionFileName(_ value: Value) -> String {
        let text = value.extendedJSON.text
        var out = ""
        for scalar in text.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "%%%02X", scalar.value)
            }
        }
        return String(out.prefix(200)) + ".realm"
    }
}
