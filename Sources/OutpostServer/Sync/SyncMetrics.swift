import Metrics
import Synchronization

/// The sync engine's counters, reported through swift-metrics and readable for the admin API.
final class SyncMetrics: Sendable {
    private let connections = Mutex(0)
    private let connectionGauge = Gauge(label: "outpost_sync_connections")
    private let uploadedCounter = Counter(label: "outpost_sync_uploaded_changesets_total")
    private let rejectedCounter = Counter(label: "outpost_sync_compensating_writes_total")
    private let downloadedCounter = Counter(label: "outpost_sync_downloaded_instructions_total")
    private let inbound = Mutex(0)
    private let inboundGauge = Gauge(label: "outpost_sync_inbound_queued_bytes")

    /// Bytes of client messages read and queued for their sessions, over all connections (``InboundBudget``).
    var queuedInboundBytes: Int { inbound.withLock { $0 } }

    func inboundQueued(by bytes: Int) {
        let n = inbound.withLock { $0 += bytes; return $0 }
        inboundGauge.record(n)
    }

    var openConnections: Int { connections.withLock { $0 } }

    func connectionOpened() {
        let n = connections.withLock { $0 += 1; return $0 }
        connectionGauge.record(n)
    }

    func connectionClosed() {
        let n = connections.withLock { $0 -= 1; return $0 }
        connectionGauge.record(n)
    }

    func uploaded(changesets: Int, rejected: Int) {
        uploadedCounter.increment(by: changesets)
        if rejected > 0 { rejectedCounter.increment(by: rejected) }
    }

    func downloaded(instructions: Int) {
        if instructions > 0 { downloadedCounter.increment(by: instructions) }
    }
}
