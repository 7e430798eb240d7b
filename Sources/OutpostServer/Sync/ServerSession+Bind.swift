import OutpostCore

extension ServerSession {
    /// Binds the session: checks the mode and partition, allocates or checks the file identity, sets up the
    /// view, and starts sending what the file has not downloaded yet.
    func bind(
        mode: SyncMode, partition: Value?, fileIdent: Int64?, salt: Int64?, cursor: DownloadCursor,
        subscriptions: SubscriptionQuery?
    ) async throws {
        guard !isBound else { throw SyncProtocolError(.reuseOfSessionIdent, "Session \(id) is already bound") }
        guard let settings = await engine.settings(appId: user.appId) else {
            throw SyncProtocolError(.badAuthentication, "Unknown app '\(user.appId)'")
        }
        self.settings = settings
        guard mode == settings.mode else {
            throw mode == .flexible
                ? SyncProtocolError(.switchToPartitionSync, "The server has partition-based sync enabled; flexible sync is not allowed")
                : SyncProtocolError(.switchToFlexibleSync, "The server has flexible sync enabled; partition-based sync is not allowed")
        }
        var context = RuleContext(
            userId: user.userId, userData: user.data, customData: user.customData, values: settings.values)
        if mode == .partition {
            let value = partition ?? .null
            guard let p = settings.partition, p.accepts(value) else {
                throw SyncProtocolError(.illegalRealmPath,
                    "Illegal Realm path (BIND): serialized partition '\(value.extendedJSON.text)' is invalid")
            }
            context.partition = value
            guard p.readPermission.evaluate(context: context) else {
                throw SyncProtocolError(.permissionDenied,
                    "Permission denied (BIND, IDENT): user '\(user.userId)' may not sync partition '\(value.extendedJSON.text)'")
            }
            canWrite = p.writePermission.evaluate(context: context)
        }
        self.fileIdent = try await identify(fileIdent: fileIdent, salt: salt)
        view = SessionView(settings: settings, context: context)
        if mode == .flexible, let subscriptions {
            switch SubscriptionValidator(settings: settings).validate(subscriptions.queries) {
            case .success(let queries):
                view = view.replacingQueries(version: subscriptions.version, queries)
            case .failure(let error):
                await writer.send(.queryError(session: id, version: subscriptions.version, code: error.code, message: error.message))
            }
            latestQueryVersion = subscriptions.version
        }
        var latest = try await engine.hub.latestVersion(appId: user.appId)
        if cursor.serverVersion > latest {
            // The hub's latest version may lag behind another server process's commits (PostgreSQL): a file that
            // downloaded them from that process must not be sent a client reset. The storage has the final word.
            latest = try await engine.storage.latestServerVersion(appId: user.appId)
        }
        guard cursor.serverVersion <= latest else {
            throw SyncProtocolError(.badServerVersion,
                "Bad server version: the file has downloaded version \(cursor.serverVersion) but the server's latest is \(latest)")
        }
        var cursor = cursor
        if cursor.serverVersion > 0 {
            // The changeset the file downloaded last must be the server's: after a restore from a backup the history
            // may have grown past the cursor again with other changes. A cursor without a salt gets the server's.
            let salt = try await engine.hub.changesets(
                appId: user.appId, after: cursor.serverVersion - 1, upTo: cursor.serverVersion, limit: 1
            ).first { $0.serverVersion == cursor.serverVersion }?.salt
            if let salt, let known = cursor.salt, known != salt {
                throw SyncProtocolError(.badServerVersion,
                    "Bad server version: the file's server version \(cursor.serverVersion) is not the server's (salt \(known), "
                    + "expected \(salt)); the server's history changed, as after a restore from a backup")
            }
            cursor.salt = salt
        }
        self.cursor = cursor
        uploadAck = try await engine.storage.transaction(appId: user.appId) { [fileIdent = self.fileIdent] tx in
            try await tx.integratedClientVersion(fileIdent: fileIdent)
        }
        // The client was told its uploads up to this version were integrated: a server without them (restored from
        // an earlier backup) must not take later ones as if nothing were missing.
        guard cursor.clientVersion <= uploadAck else {
            throw SyncProtocolError(.badClientVersion,
                "Bad client version: the file's uploads were acknowledged up to client version \(cursor.clientVersion) but the "
                + "server has integrated them up to \(uploadAck)")
        }
        isBound = true
        await engine.hub.register(appId: user.appId, waker)
        logger.debug("bound file \(self.fileIdent) at server version \(cursor.serverVersion)")
        await sendDownloads(always: true)
    }

    private func identify(fileIdent: Int64?, salt: Int64?) async throws -> Int64 {
        guard let fileIdent else {
            let file = try await engine.storage.allocateClientFile(appId: user.appId, userId: user.userId)
            await writer.send(.ident(session: id, fileIdent: file.ident, salt: file.salt))
            return file.ident
        }
        guard let file = try await engine.storage.clientFile(appId: user.appId, ident: fileIdent), file.salt == salt else {
            throw SyncProtocolError(.badClientFileIdent, "Bad client file identifier \(fileIdent) (IDENT)")
        }
        guard file.userId == user.userId else {
            throw SyncProtocolError(.userMismatch, "User mismatch: client file \(fileIdent) belongs to another user")
        }
        return fileIdent
    }
}
