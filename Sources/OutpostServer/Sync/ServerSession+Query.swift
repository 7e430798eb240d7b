import OutpostCore

extension ServerSession {
    /// Handles a new subscription set: a bad set gets error 226 for its version alone and the session goes on
    /// with the previous set; a good one is bootstrapped after the client has caught up under the old set.
    func changeQuery(_ subscriptions: SubscriptionQuery) async {
        guard settings.mode == .flexible else {
            await fail(SyncProtocolError(.switchToPartitionSync, "Subscriptions are not allowed with partition-based sync"))
            return
        }
        guard subscriptions.version > latestQueryVersion else {
            await fail(SyncProtocolError(.badMessageOrder,
                "Bad message order: subscription version \(subscriptions.version) is not newer than \(latestQueryVersion)"))
            return
        }
        latestQueryVersion = subscriptions.version
        switch SubscriptionValidator(settings: settings).validate(subscriptions.queries) {
        case .failure(let error):
            logger.info("refused subscription version \(subscriptions.version): \(error.message)")
            await engine.log(appId: user.appId, kind: "sync", level: "warning",
                             "refused subscription version \(subscriptions.version): \(error.message)")
            await writer.send(.queryError(session: id, version: subscriptions.version, code: error.code, message: error.message))
        case .success(let queries):
            await sendDownloads()
            guard !hasFailed else { return }
            let old = view!
            let new = old.replacingQueries(version: subscriptions.version, queries)
            do {
                let reflected = try await sendBootstrap(from: old, to: new)
                view = new
                if reflected > cursor.serverVersion {
                    formerView = old
                    formerViewUntil = reflected
                }
            } catch {
                logger.error("bootstrap failed: \(error)")
                await fail(SyncProtocolError(.otherSessionError, "Internal server error during bootstrap; the session will be retried"))
            }
        }
    }
}
