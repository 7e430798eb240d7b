import Foundation

/// What is wrong with a Realm file's path before SQLite opens it, in Realm's error codes and texts: SQLite says only
/// "unable to open database file" for all of them, and would take a stranger's small file for an empty database.
enum OpenFileCheck {
    /// The smallest file SQLite writes (its header); anything shorter that is not empty is no database.
    static let headerSize = 100

    static func check(path: String, readOnly: Bool) throws {
        let url = URL(fileURLWithPath: path)
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if nonDirectoryAncestor(of: url) {
                // Realm opens the lock file first and reports it.
                throw Realm.Error(.fileOperationFailed,
                    "Failed to open file at path '\(path).lock': parent path is not a directory",
                    fileURL: url.appendingPathExtension("lock"))
            }
            if readOnly {
                throw Realm.Error(.fileNotFound, "Failed to open Realm file at path '\(path)': No such file or directory",
                                  fileURL: url)
            }
            let directory = url.deletingLastPathComponent().path
            if !fileManager.fileExists(atPath: directory) {
                throw Realm.Error(.fileNotFound,
                    "Failed to open file at path '\(path).lock': No such file or directory (the directory '\(directory)' does not exist)",
                    fileURL: url.appendingPathExtension("lock"))
            }
            if !fileManager.isWritableFile(atPath: directory) {
                throw permissionDenied(path)
            }
            return
        }
        if isDirectory.boolValue {
            throw Realm.Error(.fileAccess, "Failed to open Realm file at path '\(path)': Is a directory", fileURL: url)
        }
        if !fileManager.isReadableFile(atPath: path) || (!readOnly && !fileManager.isWritableFile(atPath: path)) {
            throw permissionDenied(path)
        }
        let size = (try? fileManager.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size > 0 && size < headerSize {
            throw Realm.Error(.invalidDatabase,
                "Failed to open Realm file at path '\(path)': file is non-empty but too small (\(size) bytes) to be a valid Realm.",
                fileURL: url)
        }
    }

    private static func permissionDenied(_ path: String) -> Realm.Error {
        Realm.Error(.filePermissionDenied,
            "Failed to open Realm file at path '\(path)': Permission denied. Please use a path where your app has read-write permissions.",
            fileURL: URL(fileURLWithPath: path))
    }

    /// Whether the nearest existing ancestor of `url` is not a directory (a file where a folder should be).
    private static func nonDirectoryAncestor(of url: URL) -> Bool {
        var ancestor = url.deletingLastPathComponent()
        while ancestor.path != "/" && !ancestor.path.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
                return !isDirectory.boolValue
            }
            ancestor = ancestor.deletingLastPathComponent()
        }
        return false
    }
}
