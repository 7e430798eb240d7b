import Foundation
import OutpostCore
import Testing

@testable import Outpost

/// `SyncClientStateMachine` driven by transcripts: what happened in, the actions it asks for out, one line each (log
/// lines left out unless a test looks for them). No server, no file, no clock: the answers of the actions it asks
/// for (a download applied, the queue read) are fed back by hand, as `SyncAgent` does.
@Suite struct SyncClientStateMachineTests {
    typealias Machine = SyncClientStateMachine
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func machine(flexible: Bool = true, mode: ClientResetMode = .recoverUnsyncedChanges()) -> Machine {
        Machine(settings: .init(path: "/tmp/app.realm", flexibleSync: flexible, partition: flexible ? nil : .string("p"),
                                heldDownloadMemoryLimit: 1 << 20, clientResetMode: mode, sessionNumber: 1))
    }

    static func snapshot(ident: Int64? = 7, cursor: Int64 = 0, ack: Int64 = 0, pending: [Int64] = [],
                         resetUnderWay: Bool = false) -> SyncFileSnapshot {
        SyncFileSnapshot(fileIdent: ident, salt: ident.map { _ in 99 }, cursor: DownloadCursor(serverVersion: cursor, clientVersion: ack),
                         uploadAck: ack, lastClientVersion: ack, activeSubscriptions: nil,
                         pendingSubscriptions: pending.map { SubscriptionQuery(version: $0, queries: ["Item": "TRUEPREDICATE"]) },
                         subscriptionStates: [:], isClientResetUnderWay: resetUnderWay)
    }

    /// A connected machine whose file has its identity, after its first read of the (empty) queue.
    static func connected(_ m: inout Machine, snapshot: SyncFileSnapshot = snapshot(), at seconds: Double = 0) {
        m.socketOpened(number: 1, at: start.addingTimeInterval(seconds), pingPeriod: 60_000, pongTimeout: 120_000)
        let actions = m.bind(snapshot, recorded: [:])
        if case .readUploads(let read)? = actions.last { _ = m.uploadsRead(read, [], pending: [], limit: 1000) }
    }

    static func download(_ cursor: Int64, latest: Int64? = nil, ack: Int64 = 0, query: Int64 = 0, batch: DownloadBatchState = .steadyState,
                         from origin: Int64 = 3, count: Int = 1) -> ServerMessage {
        let changesets = (0..<count).map {
            DownloadChangeset(serverVersion: cursor - Int64(count) + 1 + Int64($0), originFileIdent: origin, originClientVersion: 1,
                              timestamp: 0, instructions: [])
        }
        return .download(DownloadMessage(
            session: 1, cursor: DownloadCursor(serverVersion: cursor, clientVersion: ack), latestServerVersion: latest ?? cursor,
            uploadAck: ack, queryVersion: query, batch: batch, changesets: changesets))
    }

    static func error(_ code: Int, tryAgain: Bool = false, action: SyncErrorAction = .applicationBug, reset: Bool = false,
                      compensating: (client: Int64, server: Int64)? = nil) -> ServerMessage {
        .error(SyncErrorInfo(
            session: 1, code: SyncErrorCode(rawValue: code), message: "error \(code)", tryAgain: tryAgain, action: action,
            shouldClientReset: reset,
            rejectedUpdates: compensating.map { _ in [RejectedUpdate(table: "Item", primaryKey: .int(1), reason: "no write")] },
            compensatingWriteServerVersion: compensating?.server, rejectedClientVersion: compensating?.client))
    }

    static func queued(_ versions: ClosedRange<Int64>, query: Int64 = 0) -> [SyncFile.QueuedUpload] {
        versions.map { SyncFile.QueuedUpload(clientVersion: $0, queryVersion: query, text: "{\"clientVersion\":\($0)}") }
    }

    /// One line per action; `logs` keeps the log lines too.
    static func lines(_ actions: [Machine.Action], logs: Bool = false) -> [String] {
        actions.compactMap { action -> String? in
            switch action {
            case .send(let message):
                switch message {
                case .bind(_, _, _, let ident, _, let cursor, _): return "send bind ident \(ident.map(String.init) ?? "none") cursor \(cursor.serverVersion)"
                case .mark(_, let id): return "send mark \(id)"
                case .query(_, let set): return "send query \(set.version)"
                case .ping: return "send ping"
                default: return "send \(message)"
                }
            case .sendUpload(let texts): return "upload \(texts.count)"
            case .log(let level, let text): return logs ? "log \(level): \(text)" : nil
            case .close: return "close"
            case .storeIdent(let ident, _): return "store ident \(ident)"
            case .holdInFile: return "hold in file"
            case .openBootstrapStream(let batch): return "open stream for \(batch.queryVersion)"
            case .streamBatch(let changesets, _): return "stream \(changesets.count)"
            case .finishStream(_, let cursor, _, let query): return "finish stream \(query) at \(cursor.serverVersion)"
            case .cancelStream: return "cancel stream"
            case .apply(let a):
                var line = "apply \(a.changesets.count) cursor \(a.cursor.serverVersion) ack \(a.ack)"
                if !a.held.isEmpty { line += " after \(a.held.parsed.count) held" }
                if let q = a.bootstrapped { line += " bootstrapping \(q)" }
                if a.finishesReset { line += " finishing the reset" }
                if !a.rejections.isEmpty { line += " recording rejections of \(a.rejections.map(\.0))" }
                return line
            case .readUploads(let read): return "read uploads after \(read.after)"
            case .nudgeUpload: return "nudge upload"
            case .trackSubscription(let v, let s): return "track \(v) \(s.text)"
            case .storeSubscriptionState(let v, let s): return "store \(v) \(s.text)"
            case .failSubscriptions: return "fail subscriptions"
            case .beginClientReset(let plan): return "begin reset \(plan)"
            case .finishClientReset: return "finish reset"
            case .report(let error): return "report \(error.code)"
            case .reportToManualHandler(let error): return "manual handler \(error.code)"
            case .invalidate: return "invalidate"
            case .reportDownloadProgress(let done, let all): return "progress \(done)/\(all)"
            case .resumeDownloadWaiters(let ids): return "resume \(ids.count) download waiters"
            case .resumeUploadWaiters(let ids): return "resume \(ids.count) upload waiters"
            case .answerVerdicts(let answers):
                return answers.map { if case .rejected(let w) = $0.1 { "verdict rejected \(w.count)" } else { "verdict accepted" } }
                    .joined(separator: ", ")
            case .failWaiters(let error): return "fail waiters \(error.code)"
            case .endConnection(let error): return "end connection: \(error)"
            }
        }
    }

    /// Feeds the application a download asked for back, as applied without problems.
    static func applyAll(_ m: inout Machine, _ actions: [Machine.Action]) -> [Machine.Action] {
        var out: [Machine.Action] = []
        for action in actions {
            out.append(action)
            if case .apply(let a) = action { out += applyAll(&m, m.applied(RealmInstance.SyncDownloadReport(), a)) }
        }
        return out
    }

    // MARK: Reconnect with backoff

    /// Between the socket opening and the BIND (the file's snapshot is read in between, and a busy machine makes
    /// that slow), a download waiter or a local change must not send a session message: the server has no session
    /// 1 on the new connection yet and closes it ("Bad session identifier 1"). The waiter gets its MARK after BIND.
    @Test func nothingOfTheSessionGoesBeforeItsBind() {
        var m = Self.machine()
        Self.connected(&m)
        _ = m.connectionEnded(.closed, at: Self.start, jitter: 0)
        m.socketOpened(number: 2, at: Self.start, pingPeriod: 60_000, pongTimeout: 120_000)
        #expect(m.waitForDownload(UUID()).isEmpty)
        #expect(m.localChange().isEmpty)
        #expect(m.sendMark(.download).isEmpty)
        let lines = Self.lines(m.bind(Self.snapshot(), recorded: [:]))
        #expect(lines.first?.hasPrefix("send bind") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("send mark") }, "\(lines)")
        #expect(lines.firstIndex { $0.hasPrefix("send mark") }! > lines.firstIndex { $0.hasPrefix("send bind") }!)
    }

    @Test func failedAttemptsBackOffExponentiallyAndAnAcceptedSessionStartsOver() {
        var m = Self.machine()
        var delays: [Duration] = []
        for _ in 0..<11 {
            delays.append(m.connectionEnded(.other("connection refused"), at: Self.start, jitter: 0).delay)
        }
        #expect(delays.map { $0.components.seconds } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        #expect(m.connectionEnded(.other("refused"), at: Self.start, jitter: 0.25).delay == .milliseconds(375_000))

        // A server that accepts the session (its IDENT) resets the row: the next drop waits one second again.
        m.socketOpened(number: 2, at: Self.start, pingPeriod: 60_000, pongTimeout: 120_000)
        #expect(Self.lines(m.bind(Self.snapshot(ident: nil), recorded: [:])) == ["send bind ident none cursor 0"])
        #expect(Self.lines(m.received(.ident(session: 1, fileIdent: 7, salt: 99), text: "", context: .init()))
            == ["store ident 7", "read uploads after 0"])
        #expect(m.connectionEnded(.closed, at: Self.start, jitter: 0).delay == .seconds(1))
        #expect(m.connectionEnded(.closed, at: Self.start, jitter: 0).delay == .seconds(2))
        // `reconnect()` while disconnected starts the row over too; while connected it does nothing.
        let whileDisconnected = m.reconnectRequested()
        #expect(whileDisconnected)
        #expect(m.connectionEnded(.closed, at: Self.start, jitter: 0).delay == .seconds(1))
        Self.connected(&m)
        let whileConnected = m.reconnectRequested()
        #expect(!whileConnected)
    }

    @Test func aDownloadAcceptsTheSessionAndTheLogSaysWhyAnUploadWaits() {
        var m = Self.machine()
        _ = m.connectionEnded(.other("refused"), at: Self.start, jitter: 0)
        let second = m.connectionEnded(.other("refused"), at: Self.start, jitter: 0)
        #expect(Self.lines(second.actions, logs: true) == [
            "log info: Sync: Connection[0]: refused",
            "log info: Sync: Session[1]: connecting again in 2.0 seconds (2 attempts in a row)",
        ])
        Self.connected(&m)
        _ = Self.applyAll(&m, m.received(Self.download(5), text: "", context: .init()))
        #expect(m.failedAttempts == 0)
    }

    @Test func fileFailuresAreReportedOnceARowAndBackOff() {
        var m = Self.machine()
        let first = m.connectionEnded(.fileFailure("disk full"), at: Self.start, jitter: 0)
        #expect(Self.lines(first.actions) == ["report clientInternalError"])
        #expect(first.delay == .seconds(2))
        let second = m.connectionEnded(.fileFailure("disk full"), at: Self.start.addingTimeInterval(5), jitter: 0)
        #expect(Self.lines(second.actions).isEmpty)
        // Ten minutes later, a new row: reported again.
        let later = m.connectionEnded(.fileFailure("disk full"), at: Self.start.addingTimeInterval(700), jitter: 0)
        #expect(Self.lines(later.actions) == ["report clientInternalError"])
    }

    // MARK: Pong timeout

    @Test func aMissingPongClosesTheConnectionAndItsEndBacksOff() {
        var m = Self.machine()
        m.socketOpened(number: 1, at: Self.start, pingPeriod: 1_000, pongTimeout: 2_000)
        _ = m.bind(Self.snapshot(), recorded: [:])
        #expect(Self.lines(m.tick(at: Self.start.addingTimeInterval(1), readerWaiting: false)) == ["send ping"])
        #expect(Self.lines(m.tick(at: Self.start.addingTimeInterval(2.5), readerWaiting: false)).isEmpty)
        #expect(Self.lines(m.tick(at: Self.start.addingTimeInterval(3.5), readerWaiting: false), logs: true) == [
            "log info: Sync: Connection[1]: no pong from the server; reconnecting", "close",
        ])
        #expect(m.connectionEnded(.closed, at: Self.start, jitter: 0).delay == .seconds(1))
        // No ticks count once the connection is over.
        #expect(m.tick(at: Self.start.addingTimeInterval(10), readerWaiting: false).isEmpty)
    }

    @Test func aPongInTimeKeepsTheConnection() {
        var m = Self.machine()
        m.socketOpened(number: 1, at: Self.start, pingPeriod: 1_000, pongTimeout: 2_000)
        _ = m.bind(Self.snapshot(), recorded: [:])
        #expect(Self.lines(m.tick(at: Self.start.addingTimeInterval(1), readerWaiting: false)) == ["send ping"])
        #expect(m.received(.pong(timestamp: 0), text: "", context: .init()).isEmpty)
        #expect(Self.lines(m.tick(at: Self.start.addingTimeInterval(2), readerWaiting: false)) == ["send ping"])
    }
}
