import Foundation
import OutpostCore

extension RealmInstance {
    /// The sync state of the instance's file, as the instance's current read or write transaction sees it.
    var syncFile: SyncFile { SyncFile(connection) }

    /// Runs `body` in a write transaction of its own, committed when it returns (the file's other instances see the
    /// commit) and rolled back when it throws.
    func syncWrite<T>(_ body: (SyncFile) throws -> T) throws -> T {
        try beginWrite()
        do {
            let result = try body(syncFile)
            try commitWrite()
            return result
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
    }
}
