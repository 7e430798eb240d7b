import Foundation
import OutpostCore

/// One connection: the token, the socket, the pings, and the events it feeds the machine.
extension SyncAgent {
    func serveConnection() async throws {
        session?.setConnectionState(.connecting)
        let user = sync.user
        let token: String
        do {
            token = try await user.accessToken(forceRefresh: forceTokenRefresh)
        } catch let error as AppError where error.httpStatusCode == 401 {
            // The server refused the refresh token: the user is logged out (which stops this session). The original
            // reports it to the error handler as `.clientUserError` (its AuthError).
            report(SyncError(.clientUserError, "Unable to refresh the user access token: \(error.message)", isFatal: true))
            throw error
        } catch {
            // The refresh before a connection could not reach the server: as a failed connection attempt.
            reportConnectionFailure("Could not refresh the access token to connect: \(error)", isTimeout: false)
            throw error
        }
        forceTokenRefresh = false
        let url = SyncURL.realmSync(baseURL: user.app.baseURL, appId: user.app.appId)
        let conn: SyncSocket
        do {
            conn = try await SyncSocket.connect(url: url, accessToken: token, timeout: .milliseconds(Int(timeouts.connectTimeout)))
        } catch {
            // A failed attempt may have failed on its token; a stopped one did not.
            if !(error is CancellationError) { forceTokenRefresh = true }
            throw error
        }
        // However this returns or throws (cancelled, a failed read of the file, the server's close), the socket
        // and its pings end with it: the server must not keep a session bound to a connection nobody reads.
        defer {
            conn.close()
            pingTask?.cancel()
        }
        try Task.checkCancellation()
        connection = conn
        session?.setConnectionState(.connected)
        machine.socketOpened(number: Self.nextConnectionNumber(), at: Date(),
                             pingPeriod: Int(timeouts.pingKeepalivePeriod), pongTimeout: Int(timeouts.pongKeepaliveTimeout))
        startPings(conn)

        // Held downloads stored by an earlier connection (or process) are dropped: the server sends them again.
        let (snapshot, recorded) = try await database.perform { instance in
            let file = instance.syncFile
            if try file.hasHeldDownloads() { try instance.syncWrite { try $0.dropHeldDownloads() } }
            return (try file.snapshot(), try file.rejections())
        }
        tracker.load(snapshot.subscriptionStates)
        tracker.refresh(from: snapshot.subscriptionStates)
        let bind = machine.bind(snapshot, recorded: recorded)
        if machine.reset == nil { resetBefore = nil }
        session?.resetDownloadProgress()
        try await perform(bind)

        for await event in conn.events {
            try Task.checkCancellation()
            // Once this side closed the connection (a bad message, an error, no pong), nothing more it buffered is
            // handled: a download after one that could not be read would move the cursor past it.
            if conn.isClosed { return }
            switch event {
            case .message(let text):
                conn.budget.release(text.utf8.count)
                try await receive(text, conn)
            case .localChange:
                conn.took(event)
                if conn.hasEnded { continue }  // `.closed` is queued: reading the queue would send nowhere
                try await perform(machine.localChange())
            case .pingTick:
                conn.took(event)
                if conn.hasEnded { continue }
                try await perform(machine.tick(at: Date(), readerWaiting: conn.budget.waiting > 0))
            case .closed(let reason):
                manager.log(.info, "Sync: Connection[\(machine.connectionNumber)]: closed by the server: \(reason ?? "no reason given")")
                return
            }
        }
    }

    /// One message: a bootstrap batch that will wait in the file is not parsed now (it is when it is applied).
    private func receive(_ text: String, _ conn: SyncSocket) async throws {
        var context = SyncClientStateMachine.Context()
        if let (envelope, hasChangesets) = storedBatchEnvelope(text) {
            context.subscriptionState = tracker.state(Self.queryVersion(envelope))
            context.appFileOpen = RealmRegistry.shared.hasUsableAppInstance(path: path)
            try await perform(machine.received(envelope, text: text, unparsed: hasChangesets, context: context))
            return
        }
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(text)
        } catch {
            manager.log(.error, "Sync: Connection[\(machine.connectionNumber)]: bad message from the server: \(error)")
            conn.close()
            return
        }
        if case .download(let download) = message {
            context.subscriptionState = tracker.state(download.queryVersion)
            if download.batch == .moreToCome { context.appFileOpen = RealmRegistry.shared.hasUsableAppInstance(path: path) }
        }
        try await perform(machine.received(message, text: text, context: context))
    }

    private static func queryVersion(_ message: ServerMessage) -> Int64 {
        guard case .download(let download) = message else { return 0 }
        return download.queryVersion
    }

    /// A download message's envelope (its changesets unread) and whether it has changesets, when it is a bootstrap
    /// batch (`more`) that will be held in the file (``HeldDownloads``) — nil for any other message, which is parsed
    /// whole.
    private func storedBatchEnvelope(_ text: String) -> (ServerMessage, Bool)? {
        guard !machine.keepsInMemory(text.utf8.count),
            let (envelope, hasChangesets) = DownloadMessageReader.envelope(text),
            case .download(let download) = envelope, download.batch == .moreToCome
        else { return nil }
        return (envelope, hasChangesets)
    }

    private func startPings(_ conn: SyncSocket) {
        pingTask?.cancel()
        // The tick decides whether a ping is due or overdue (``SyncKeepalive``).
        let tick = machine.keepalive.tickInterval
        pingTask = Task {
            var sinceLook: Duration = .zero
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                if Task.isCancelled { break }
                sinceLook += tick
                if sinceLook >= .seconds(1) {
                    // Every second: look for transactions committed by other processes (they cannot nudge this one).
                    sinceLook = .zero
                    conn.inject(.localChange)
                }
                conn.inject(.pingTick)
            }
        }
    }
}
