import Foundation
import OutpostCore
import Testing

@testable import Outpost

/// Transcripts of the machine's longer flows: client resets in each mode, a compensating write followed by a later
/// local write, and bootstraps — held, streamed, and interrupted.
@Suite struct SyncClientStateMachineFlowTests {
    typealias T = SyncClientStateMachineTests
    let context = SyncClientStateMachine.Context()

    // MARK: Client reset

    @Test func manualResetReportsWithABackupPathFailsTheWaitersAndStops() {
        var m = T.machine(mode: .manual())
        T.connected(&m)
        let waiter = UUID()
        #expect(T.lines(m.waitForDownload(waiter)) == ["send mark 1"])
        #expect(T.lines(m.received(T.error(209, action: .clientReset, reset: true), text: "", context: context)) == [
            "invalidate", "report clientResetError", "fail waiters clientResetError", "fail subscriptions", "close",
        ])
        #expect(m.isInvalid)
        #expect(m.downloadWaiters.isEmpty)
        // With the mode's own handler, the report goes there instead.
        var handled = T.machine(mode: .manual(errorHandler: { _, _ in }))
        T.connected(&handled)
        #expect(T.lines(handled.received(T.error(209, reset: true), text: "", context: context)).prefix(2)
            == ["invalidate", "manual handler clientResetError"])
    }

    @Test func discardResetForgetsTheQueueBindsAgainAtOnceAndFinishesWithTheBootstrap() {
        var m = T.machine(mode: .discardUnsyncedChanges())
        T.connected(&m, snapshot: T.snapshot(ident: 7, cursor: 10, ack: 3))
        let upload = UUID()
        #expect(T.lines(m.waitForUpload(upload, target: 5)) == ["nudge upload"])
        #expect(T.lines(m.received(T.error(211, reset: true), text: "", context: context)) == ["begin reset discard"])
        // The file dropped its queue (its acknowledgement now covers it): the upload waiter is answered.
        #expect(T.lines(m.clientResetBegun(.discard, storedUploadAck: 5)) == ["resume 1 upload waiters", "close"])
        #expect(m.connectionEnded(.closed, at: T.start, jitter: 0).delay == .zero)

        // The new connection binds as a new file and waits for the bootstrap of the set it sends again.
        m.socketOpened(number: 2, at: T.start, pingPeriod: 60_000, pongTimeout: 120_000)
        #expect(T.lines(m.bind(T.snapshot(ident: nil, pending: [4], resetUnderWay: true), recorded: [:]))
            == ["send bind ident none cursor 0"])
        #expect(m.reset == .init(awaitsBootstrap: true, awaitedVersions: [4]))
        _ = m.received(.ident(session: 1, fileIdent: 8, salt: 1), text: "", context: context)
        let more = m.received(T.download(2, latest: 3, query: 4, batch: .moreToCome), text: "{}", context: .init(subscriptionState: .pending))
        #expect(T.lines(more) == ["track 4 bootstrapping"])  // held in memory; no stream during a reset
        let last = T.applyAll(&m, m.received(T.download(3, query: 4, batch: .lastInBatch), text: "{}", context: context))
        #expect(T.lines(last) == [
            "apply 1 cursor 3 ack 0 after 1 held bootstrapping 4 finishing the reset", "progress 3/3",
            "finish reset", "track 4 awaitingMark", "send mark 1", "read uploads after 0",
        ])
        #expect(T.lines(last, logs: true).contains("log info: Sync: Connection[2]: Session[1]: client reset complete"))
        #expect(m.reset == nil)
    }

    @Test func nothingIsSentForASessionTheServerEndedWhileTheResetBegins() {
        var m = T.machine()
        T.connected(&m)
        #expect(T.lines(m.received(T.error(211, action: .clientReset), text: "", context: context)) == ["begin reset recover"])
        // While `beforeReset` runs: a waiter's mark, a local change and a tick send nothing.
        #expect(m.waitForDownload(UUID()).isEmpty)
        #expect(m.localChange().isEmpty)
        #expect(m.tick(at: T.start.addingTimeInterval(600), readerWaiting: false).isEmpty)
        #expect(T.lines(m.clientResetBegun(.recover, storedUploadAck: nil)) == ["close"])
        // The next connection asks for the waiter's mark once the reset is done.
        _ = m.connectionEnded(.closed, at: T.start, jitter: 0)
        m.socketOpened(number: 2, at: T.start, pingPeriod: 60_000, pongTimeout: 120_000)
        _ = m.bind(T.snapshot(ident: nil, pending: [1], resetUnderWay: true), recorded: [:])
        _ = m.received(.ident(session: 1, fileIdent: 8, salt: 1), text: "", context: context)
        let last = T.applyAll(&m, m.received(T.download(3, query: 1, batch: .lastInBatch), text: "{}", context: context))
        #expect(T.lines(last).contains("send mark 1"))
        #expect(T.lines(last).contains("finish reset"))
    }

    @Test func recoverModesFallBackAsTheOriginalDoes() {
        let noRecovery = T.error(211, action: .clientResetNoRecovery)
        var recover = T.machine(mode: .recoverUnsyncedChanges())
        T.connected(&recover)
        #expect(T.lines(recover.received(T.error(211, action: .clientReset), text: "", context: context)) == ["begin reset recover"])
        var refused = T.machine(mode: .recoverUnsyncedChanges())
        T.connected(&refused)
        #expect(T.lines(refused.received(noRecovery, text: "", context: context)).prefix(2) == ["invalidate", "report clientResetError"])
        var orDiscard = T.machine(mode: .recoverOrDiscardUnsyncedChanges())
        T.connected(&orDiscard)
        #expect(T.lines(orDiscard.received(noRecovery, text: "", context: context)) == ["begin reset discard"])
    }

    @Test func aPartitionResetHoldsDownloadsUntilItHasCaughtUp() {
        var m = T.machine(flexible: false)
        T.connected(&m, snapshot: T.snapshot(ident: 9, resetUnderWay: true))
        #expect(m.reset == .init(awaitsBootstrap: false, awaitedVersions: []))
        #expect(T.lines(m.received(T.download(4, latest: 9), text: "{}", context: context)) == ["read uploads after 0"])
        let caughtUp = T.applyAll(&m, m.received(T.download(9, latest: 9, count: 5), text: "{}", context: context))
        #expect(T.lines(caughtUp) == [
            "apply 5 cursor 9 ack 0 after 1 held finishing the reset", "progress 9/9", "finish reset", "read uploads after 0",
        ])
    }

    @Test func aResetWhoseSetsAreAllRefusedFinishesWithWhatCame() {
        var m = T.machine()
        T.connected(&m, snapshot: T.snapshot(ident: 9, cursor: 2, pending: [5], resetUnderWay: true))
        _ = T.applyAll(&m, m.received(T.download(3), text: "{}", context: context))
        let refused = T.applyAll(&m, m.received(.queryError(session: 1, version: 5, code: SyncErrorCode(rawValue: 226), message: "bad query"),
                                                text: "", context: context))
        #expect(T.lines(refused) == [
            "store 5 error", "apply 0 cursor 3 ack 0 finishing the reset", "progress 1/1", "finish reset",
        ])
    }

    // MARK: Compensating writes

    @Test func aCompensatingWriteIsReportedOnceItsRevertIsAppliedAndALaterWriteIsAccepted() {
        var m = T.machine()
        T.connected(&m, snapshot: T.snapshot(ident: 7, cursor: 5))
        // Two transactions to the same object: the first refused, the second (made later) accepted.
        #expect(T.lines(m.localChange()) == ["read uploads after 0"])
        #expect(T.lines(m.uploadsRead(.init(generation: m.generation, after: 0, lastQuery: 0), T.queued(1...2), pending: [], limit: 1000))
            == ["upload 2"])
        let first = UUID(), second = UUID()
        #expect(m.verdict(first, forTransaction: 1).0 == nil)
        #expect(m.verdict(second, forTransaction: 2).0 == nil)
        // The error comes before the download that reverts the write: nothing is reported yet.
        #expect(T.lines(m.received(T.error(231, tryAgain: true, action: .warning, compensating: (1, 8)), text: "", context: context)).isEmpty)
        // The download at 6 does not hold the revert: the acknowledgement answers the second transaction only.
        let early = T.applyAll(&m, m.received(T.download(6, ack: 2), text: "{}", context: context))
        #expect(T.lines(early) == ["apply 1 cursor 6 ack 2", "progress 1/1", "verdict accepted", "read uploads after 2"])
        // The revert at 8: recorded with the download, then reported, then the first verdict.
        let revert = T.applyAll(&m, m.received(T.download(8, ack: 2, from: 0, count: 2), text: "{}", context: context))
        #expect(T.lines(revert) == [
            "apply 2 cursor 8 ack 2 recording rejections of [1]", "progress 3/3", "report writeRejected", "verdict rejected 1",
            "read uploads after 2",
        ])
        #expect(T.lines(revert, logs: true).contains {
            $0.hasSuffix("Reporting compensating write for client version 1 in server version 8: error 231")
        })
        // Asked again later, the verdicts come at once.
        guard case .rejected(let writes)? = m.verdict(UUID(), forTransaction: 1).0 else { Issue.record("not rejected"); return }
        #expect(writes.map(\.objectType) == ["Item"])
        if case .accepted? = m.verdict(UUID(), forTransaction: 2).0 {} else { Issue.record("not accepted") }
    }

    @Test func uploadsInterleaveSubscriptionSetsWhereTheyWereCommittedAndStayUnderTheLimit() {
        var m = T.machine()
        T.connected(&m)
        let sets = [SubscriptionQuery(version: 1, queries: [:]), SubscriptionQuery(version: 2, queries: [:])]
        let queue = T.queued(1...2, query: 0) + T.queued(3...3, query: 1) + T.queued(4...4, query: 2)
        #expect(T.lines(m.uploadsRead(.init(generation: m.generation, after: 0, lastQuery: 0), queue, pending: sets, limit: 4)) == [
            "upload 2", "send query 1", "upload 1", "send query 2", "upload 1", "nudge upload",
        ])
        // A read answered after its connection ended is dropped.
        let stale = SyncClientStateMachine.UploadRead(generation: m.generation, after: 4, lastQuery: 2)
        _ = m.connectionEnded(.closed, at: T.start, jitter: 0)
        T.connected(&m)
        #expect(m.uploadsRead(stale, T.queued(5...5), pending: [], limit: 1000).isEmpty)
    }

    // MARK: Bootstrap

    @Test func aBootstrapWithoutAnAppRealmIsStreamedAndCommittedWithItsLastBatch() {
        var m = T.machine()
        T.connected(&m)
        let first = m.received(T.download(2, latest: 4, query: 1, batch: .moreToCome), text: "{}", context: .init(subscriptionState: .pending))
        #expect(T.lines(first) == ["track 1 bootstrapping", "open stream for 1"])
        guard case .openBootstrapStream(let batch)? = first.last else { return }
        #expect(T.lines(m.streamOpened(true, batch)) == ["stream 1"])
        // Uploads wait while a bootstrap arrives.
        #expect(m.localChange().isEmpty)
        #expect(T.lines(m.received(T.download(3, latest: 4, query: 1, batch: .moreToCome), text: "{}", context: context)) == ["stream 1"])
        #expect(T.lines(m.received(T.download(4, query: 1, batch: .lastInBatch), text: "{}", context: context)) == ["finish stream 1 at 4"])
        #expect(T.lines(m.streamFinished(RealmInstance.SyncDownloadReport(), last: [], cursor: DownloadCursor(serverVersion: 4, clientVersion: 0),
                                         ack: 0, queryVersion: 1, instructions: 30))
            == ["progress 4/4", "track 1 awaitingMark", "send mark 1", "read uploads after 0"])
        #expect(T.lines(m.received(.mark(session: 1, requestId: 1, serverVersion: 4), text: "", context: context)) == ["store 1 complete"])
    }

    @Test func aBootstrapInterruptedByAnErrorIsRolledBackAndComesAgain() {
        var m = T.machine()
        T.connected(&m)
        let first = m.received(T.download(2, latest: 4, query: 1, batch: .moreToCome), text: "{}", context: .init(subscriptionState: .pending))
        guard case .openBootstrapStream(let batch)? = first.last else { Issue.record("no stream"); return }
        _ = m.streamOpened(true, batch)
        // A transient error before the last batch: the stream rolls back, the error closes the connection, and the
        // connection ends as interrupted.
        let interrupted = m.received(T.error(201, tryAgain: true, action: .transient), text: "", context: context)
        #expect(T.lines(interrupted) == [
            "cancel stream", "close",
            "end connection: the bootstrap applied as it arrives stopped (another message came before its last batch); it is rolled back and asked for again",
        ])
        #expect(!m.isStreaming && !m.isBootstrapping)
        guard case .endConnection(let error as BootstrapStreamInterrupted)? = interrupted.last else { return }
        #expect(m.connectionEnded(.streamInterrupted(error), at: T.start, jitter: 0).delay == .seconds(1))
        // The next connection starts from the file: nothing held, uploads go again, the bootstrap comes again.
        T.connected(&m)
        #expect(m.held.isEmpty)
        #expect(T.lines(m.received(T.download(2, latest: 4, query: 1, batch: .moreToCome), text: "{}", context: .init(subscriptionState: .bootstrapping)))
            == ["open stream for 1"])
    }

    @Test func aBootstrapWhileTheAppHasTheFileOpenIsHeldAndAppliedInOneTransaction() {
        var m = T.machine()
        T.connected(&m)
        let open = SyncClientStateMachine.Context(subscriptionState: .pending, appFileOpen: true)
        #expect(T.lines(m.received(T.download(2, latest: 3, query: 1, batch: .moreToCome), text: "{}", context: open)) == ["track 1 bootstrapping"])
        // A held bootstrap interrupted by the end of the connection is dropped with it.
        _ = m.connectionEnded(.other("socket closed"), at: T.start, jitter: 0)
        T.connected(&m)
        #expect(m.held.isEmpty)
        _ = m.received(T.download(2, latest: 3, query: 1, batch: .moreToCome), text: "{}", context: open)
        let last = T.applyAll(&m, m.received(T.download(3, query: 1, batch: .lastInBatch), text: "{}", context: open))
        #expect(T.lines(last) == [
            "apply 1 cursor 3 ack 0 after 1 held bootstrapping 1", "progress 3/3", "track 1 awaitingMark", "send mark 1",
            "read uploads after 0",
        ])
    }

    @Test func aFatalErrorInvalidatesTheSessionAndFailsEveryWaiter() {
        var m = T.machine()
        T.connected(&m)
        _ = m.waitForDownload(UUID())
        _ = m.waitForUpload(UUID(), target: 4)
        #expect(T.lines(m.received(T.error(206), text: "", context: context)) == [
            "invalidate", "report permissionDeniedError", "fail waiters permissionDeniedError", "fail subscriptions", "close",
        ])
        // A transient error only closes the connection.
        var t = T.machine()
        T.connected(&t)
        #expect(T.lines(t.received(T.error(201, tryAgain: true, action: .transient), text: "", context: context)) == ["close"])
        #expect(!t.isInvalid)
    }
}
