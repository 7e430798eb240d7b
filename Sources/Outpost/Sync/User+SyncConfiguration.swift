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
            SyncFileNames.partitionFileName(SyncConfiguration.protocolValue(ofPartition: partitionValue)))
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
    /// The longest escaped partition text used as it is in a file name (file names may have 255 bytes).
    static let maxEscapedLength = 200

    /// A file name for a partition value, one per value: its Extended JSON text with every UTF-8 byte outside
    /// `A–Z a–z 0–9 - _ .` written as `%XX` (so the escaping reads back one way only); when that is longer than
    /// ``maxEscapedLength``, a 128-bit hash of the text in hex instead (the original uses SHA-256 for long names; a
    /// file name needs no cryptographic hash, and FNV-1a needs no crypto library in the client). Before, escapes had
    /// no fixed width, non-ASCII letters were kept, and long names were cut: two partition values could share a file,
    /// and a long non-ASCII one could not be opened.
    static func partitionFileName(_ value: Value) -> String {
        let text = value.extendedJSON.text
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        guard out.utf8.count > maxEscapedLength else { return out + ".realm" }
        return "h" + String(fnv1a128(text.utf8), radix: 16) + ".realm"
    }

    /// The 128-bit FNV-1a hash of `bytes`.
    static func fnv1a128(_ bytes: some Sequence<UInt8>) -> UInt128 {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013b
        for byte in bytes {
            hash ^= UInt128(byte)
            hash = hash &* prime
        }
        return hash
    }
}
