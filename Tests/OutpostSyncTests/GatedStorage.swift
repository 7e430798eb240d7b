import Foundation
import OutpostCore
import OutpostServer
import OutpostServerTesting

/// A ``ServerStorage`` that forwards everything to another one, except that a test can hold the next read of a
/// collection's documents (the first page of `documents(appId:collection:after:limit:)` or `documentTexts(…)`, as a
/// subscription bootstrap reads them, or `documents(appId:collection:)`) at a gate, change
/// data meanwhile, and release it: a deterministic way to interleave a bootstrap with other writes.
final class GatedStorage: ForwardingStorage, @unchecked Sendable {  // gate state is behind `lock`
    private let lock = NSLock()
    private var armed = false
    private var entered = false
    private var release: CheckedContinuation<Void, Never>?
    private var released = false

    /// Makes the next read of a collection wait until ``open()``.
    func arm() { lock.withLock { armed = true; entered = false; released = false } }
    /// Whether a read is waiting at the gate.
    var isHolding: Bool { lock.withLock { entered } }
    /// Lets the held read go on.
    func open() {
        let c: CheckedContinuation<Void, Never>? = lock.withLock {
            released = true
            defer { release = nil }
            return release
        }
        c?.resume()
    }

    override func documents(appId: String, collection: String) async throws -> [Document] {
        await passGate()
        return try await base.documents(appId: appId, collection: collection)
    }

    /// A bootstrap reads a collection page by page: the first page of a read waits at the gate.
    override func documents(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocument] {
        if after == nil { await passGate() }
        return try await base.documents(appId: appId, collection: collection, after: after, limit: limit)
    }

    /// The same gate for a bootstrap whose session sees the whole collection (it reads the stored texts).
    override func documentTexts(appId: String, collection: String, after: String?, limit: Int) async throws -> [StoredDocumentText] {
        if after == nil { await passGate() }
        return try await base.documentTexts(appId: appId, collection: collection, after: after, limit: limit)
    }

    /// Waits until ``open()`` when the gate is armed (and disarms it).
    private func passGate() async {
        let hold: Bool = lock.withLock {
            guard armed else { return false }
            armed = false
            entered = true
            return true
        }
        guard hold else { return }
        await withCheckedContinuation { c in
            let now: Bool = lock.withLock {
                if released { return true }
                release = c
                return false
            }
            if now { c.resume() }
        }
    }
}
