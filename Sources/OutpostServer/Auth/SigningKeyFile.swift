import Crypto
import Foundation

/// The server's token signing key: 32 random bytes in `<data-dir>/signing-key` (mode 0600), made on first start and
/// read on every later start, so tokens survive restarts. Delete the file to sign everyone out.
public enum SigningKeyFile {
    /// The key file's name inside the data directory.
    public static let fileName = "signing-key"

    /// Reads the key in `directory`, or creates it (and the directory) when absent.
    ///
    /// - Throws: ``SigningKeyError`` when the file cannot be created or read, or does not hold 32 bytes.
    public static func loadOrCreate(in directory: URL) throws(SigningKeyError) -> SymmetricKey {
        let url = directory.appendingPathComponent(fileName)
        if let bytes = try readIfPresent(url) { return SymmetricKey(data: bytes) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SigningKeyError(path: directory.path, message: "cannot create the data directory: \(error)")
        }
        let bytes = AuthRandom.bytes(32)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 {
            // Another process created it first: use theirs.
            if errno == EEXIST, let existing = try readIfPresent(url) { return SymmetricKey(data: existing) }
            throw SigningKeyError(path: url.path, message: "cannot create the key file: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            throw SigningKeyError(path: url.path, message: "cannot write the key file")
        }
        return SymmetricKey(data: bytes)
    }

    private static func readIfPresent(_ url: URL) throws(SigningKeyError) -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url) else {
            throw SigningKeyError(path: url.path, message: "cannot read the key file")
        }
        guard data.count == 32 else {
            throw SigningKeyError(path: url.path, message: "expected 32 bytes, found \(data.count)")
        }
        return Array(data)
    }
}

/// The signing key file could not be made or read.
public struct SigningKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}
