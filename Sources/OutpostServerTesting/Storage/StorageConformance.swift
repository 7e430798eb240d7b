import Foundation
import OutpostCore
import OutpostServer

/// Driver-agnostic checks of the ``ServerStorage`` contract, run against every storage driver.
///
/// The checks follow the storage's protocols: ``accountStorageChecks`` (``AccountStorage``),
/// ``documentStorageChecks`` (``DocumentStorage``), ``appLogStorageChecks`` (``AppLogStorage``), each of whose
/// checks sees the storage only as that protocol, ``auditStorageChecks`` (``AuditStorage`` with the transactions that
/// write its rows), and ``serverStorageChecks`` for what spans all of them (names kept verbatim and apps isolated in
/// every table). ``checks`` is all of them.
///
/// Each ``Check`` gets a freshly prepared, empty storage. Run them one by one (for example as the arguments of a
/// parameterised test, so each shows up by name) or all at once:
///
/// ```swift
/// @Test(arguments: StorageConformance.checks)
/// func sqlite(_ check: StorageConformance.Check) async throws {
///     let directory = try TemporaryDirectory()
///     try await check.run { try SQLiteStorage(path: directory.path("server.sqlite")) }
/// }
///
/// try await StorageConformance.runAll { try SQLiteStorage.inMemory() }
/// ```
///
/// A failed expectation throws ``ConformanceFailure`` naming the check, the file and line, and what differed.
public enum StorageConformance {
    /// One named check of the storage contract.
    public struct Check: Sendable, CustomStringConvertible {
        public let name: String
        let body: @Sendable (any ServerStorage) async throws -> Void

        init(_ name: String, _ body: @escaping @Sendable (any ServerStorage) async throws -> Void) {
            self.name = name
            self.body = body
        }

        /// A check that sees the storage as an ``AccountStorage`` only.
        static func accountStorage(
            _ name: String, _ body: @escaping @Sendable (any AccountStorage) async throws -> Void
        ) -> Check {
            Check(name) { storage in try await body(storage) }
        }

        /// A check that sees the storage as a ``DocumentStorage`` only.
        static func documentStorage(
            _ name: String, _ body: @escaping @Sendable (any DocumentStorage) async throws -> Void
        ) -> Check {
            Check(name) { storage in try await body(storage) }
        }

        /// A check that sees the storage as an ``AppLogStorage`` only.
        static func appLogStorage(
            _ name: String, _ body: @escaping @Sendable (any AppLogStorage) async throws -> Void
        ) -> Check {
            Check(name) { storage in try await body(storage) }
        }

        public var description: String { name }

        /// Runs the check on a prepared storage (the storage is left open).
        public func run(on storage: any ServerStorage) async throws {
            do {
                try await body(storage)
            } catch var failure as ConformanceFailure {
                failure.check = name
                throw failure
            } catch {
                throw ConformanceFailure(check: name, message: "unexpected error: \(String(reflecting: error))")
            }
        }

        /// Makes a storage, prepares it, runs the check and closes the storage.
        public func run(_ make: () async throws -> any ServerStorage) async throws {
            let storage = try await make()
            do {
                try await storage.prepare()
                try await run(on: storage)
            } catch {
                try? await storage.close()
                throw error
            }
            try await storage.close()
        }
    }

    /// Every check, in a stable order: those of each protocol, then those that span them.
    public static var checks: [Check] {
        accountStorageChecks + documentStorageChecks + appLogStorageChecks + auditStorageChecks + serverStorageChecks
    }

    /// Runs every check, each on a fresh storage from `make`, and throws the first failure.
    public static func runAll(_ make: () async throws -> any ServerStorage) async throws {
        for check in checks { try await check.run(make) }
    }
}
