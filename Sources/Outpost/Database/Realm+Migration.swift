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
    guard FileManager.default.fileExists(atPath: path) else {
        throw Realm.Error(.fileNotFound, "Unable to open a realm at path '\(path)': No such file or directory.",
                          fileURL: fileURL)
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
