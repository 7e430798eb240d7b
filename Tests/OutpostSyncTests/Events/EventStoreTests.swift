import Foundation
import OutpostCore
import Testing

@testable import Outpost

/// The device's event store on its own (no Realm, no server).
@Suite struct EventStoreTests {
    /// Past 4 MiB the log is checkpointed in place: the file is kept (and written again from its start) instead of
    /// cut to nothing, it never grows past the size limit, and every event stays readable.
    @Test func theLogIsCheckpointedInPlaceAndStaysBounded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-evstore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = EventStore(directory: directory, partitionPrefix: "events", maxShardSize: 1 << 30)
        let payload = String(repeating: "x", count: 200_000)
        var written: [StoredEvent] = []
        var largestLog = 0
        var logSizesAfterCheckpoints: [Int] = []
        for n in 0..<60 {  // ≈ 12 MB: three checkpoint cycles
            let event = StoredEvent(id: .generate(), timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)),
                                    activity: "scope \(n)", event: "write", data: "{\"n\":\(n),\"p\":\"\(payload)\"}",
                                    metadata: ["device": "d\(n % 3)"])
            try store.append([event])
            written.append(event)
            let shard = try #require(store.shardFiles.first)
            let log = shard.path + "-wal"
            let before = Self.size(log)
            largestLog = max(largestLog, before)
            store.checkpointIfNeeded()
            if before >= EventStore.checkpointBytes { logSizesAfterCheckpoints.append(Self.size(log)) }
        }
        #expect(store.shardFiles.count == 1)
        #expect(logSizesAfterCheckpoints.count >= 2, "the log reached the checkpoint size several times")
        #expect(logSizesAfterCheckpoints.allSatisfy { $0 > 0 }, "a checkpoint keeps the log file")
        #expect(largestLog <= EventStore.logSizeLimit, "the log never outgrows one checkpoint cycle: \(largestLog)")
        #expect(try EventStore.events(inShard: try #require(store.shardFiles.first)) == written)
    }

    private static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
