import Crypto
import Foundation
import OutpostServer
import Testing

@Suite struct SigningKeyFileTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("outpost-key-\(UUID().uuidString)")
    }

    @Test func createsAPrivateKeyOnceAndReusesIt() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try SigningKeyFile.loadOrCreate(in: directory)
        let path = directory.appendingPathComponent("signing-key").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 32)
        let second = try SigningKeyFile.loadOrCreate(in: directory)
        #expect(first == second)
        let otherDirectory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: otherDirectory) }
        let other = try SigningKeyFile.loadOrCreate(in: otherDirectory)
        #expect(first != other)
    }

    @Test func rejectsAKeyFileOfTheWrongSize() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("short".utf8).write(to: directory.appendingPathComponent("signing-key"))
        #expect(throws: SigningKeyError.self) { try SigningKeyFile.loadOrCreate(in: directory) }
    }
}
