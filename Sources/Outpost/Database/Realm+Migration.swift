import Foundation

extension Realm {
    /// Opens the Realm once so that its migration (if one is needed) runs now. Opening a Realm runs
    /// the migration anyway; this only makes the moment explicit.
    public static func performMigration(for configuration: Realm.Configuration = .defaultConfiguration) throws {
        _ = try Realm(configuration: configuration)
    }
}

/// The schema version stored in the Realm file at `fileURL`, without opening it as a Realm.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    let path = fileURL.path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw Realm.Error(.invalidDatabase, "Realm at path '\(path)' has not been initialized.", fileURL: fileURL)
    }
    // A directory or a device (`/dev/null`) is no Realm file to read (Realm: an access error).
    let type = (try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType
    guard !isDirectory.boolValue, type == nil || type == .typeRegular else {
        throw Realm.Error(.fileAccess, "Unable to open a realm at path '\(path)': not a regular file.", fileURL: fileURL)
    }
    do {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        guard case .integer(let version) = try connection.scalar(
            "SELECT value FROM __outpost_meta WHERE key = 'schemaVersion'")
        else {
            throw Realm.Error(.invalidDatabase, "The file at '\(path)' has no schema version.", fileURL: fileURL)
        }
        return UInt64(version)
    } catch let error as Realm.Error {
        throw error
    } catch {
        throw Realm.Error(.invalidDatabase,
            "Unable to read the schema version of the realm at path '\(path)': \(error).", fileURL: fileURL)
    }
}
