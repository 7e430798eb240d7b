import Foundation

extension Realm {
    /// Opens the Realm asynchronously, isolated to the calling actor (or, from a nonisolated context,
    /// usable by the task that opened it: Swift's `Sendable` checks keep it there).
    ///
    /// For a synced Realm, `downloadBeforeOpen` says whether to wait for the server first: `.never` (the default)
    /// returns at once, `.once` waits when the file is new, `.always` waits every time. With flexible sync the
    /// wait includes the initial subscriptions; a refused one throws `Realm.Error.subscriptionFailed`.
    public init(
        configuration: Configuration = .defaultConfiguration, actor: isolated (any Actor)? = #isolation,
        downloadBeforeOpen: OpenBehavior = .never
    ) async throws {
        let confinement: Confinement = actor.map { .actor($0) } ?? .none
        let path = configuration.resolvedPath
        let existed = FileManager.default.fileExists(atPath: path)
        // An actor's Realm refreshes and notifies on the actor, as one confined to a run loop or queue does there.
        instance = try RealmInstance.open(configuration: configuration, confinement: confinement,
                                          scheduler: actor.map { .actor(ActorScheduler($0)) })
        if configuration.syncConfiguration != nil,
            downloadBeforeOpen == .always || (downloadBeforeOpen == .once && !existed)
        {
            instance.isStillOpening.store(true, ordering: .releasing)
            defer { instance.isStillOpening.store(false, ordering: .releasing) }
            try await Realm.waitForDownload(path: path, configuration: configuration)
            try instance.advance()
        }
    }

    /// Opens a Realm isolated to the calling actor, as `init(configuration:actor:downloadBeforeOpen:)` does (Realm's
    /// static form).
    public static func open(
        configuration: Realm.Configuration = .defaultConfiguration, _isolation actor: isolated any Actor = #isolation,
        downloadBeforeOpen: OpenBehavior = .never
    ) async throws -> Realm {
        try await Realm(configuration: configuration, actor: actor, downloadBeforeOpen: downloadBeforeOpen)
    }

    /// Opens a Realm in the background and calls `callback` on `callbackQueue` with it (confined to that queue) or
    /// with the error, as Realm Swift's `asyncOpen`. For a synced Realm everything the server has is downloaded
    /// first (with flexible sync, the initial subscriptions included), like `downloadBeforeOpen: .always`.
    ///
    /// ```swift
    /// Realm.asyncOpen(configuration: config, callbackQueue: queue) { result in
    ///     switch result {
    ///     case .success(let realm): print(realm.objects(Item.self).count)
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// ```
    @discardableResult
    public static func asyncOpen(
        configuration: Realm.Configuration = .defaultConfiguration, callbackQueue: DispatchQueue = .main,
        callback: @escaping (Result<Realm, Swift.Error>) -> Void
    ) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        nonisolated(unsafe) let callback = callback  // called only on `callbackQueue`
        task.run(Task.detached {
            let failure: Swift.Error?
            do {
                try await downloadForAsyncOpen(configuration, task)
                failure = nil
            } catch {
                failure = error
            }
            callbackQueue.async {
                guard !task.isCancelled else { return }
                if let failure {
                    callback(.failure(failure))
                } else {
                    callback(Result { try Realm(configuration: configuration, queue: callbackQueue) })
                }
            }
        })
        return task
    }

    /// Opens the file in the background (which validates the configuration and starts its session) and, for a
    /// synced Realm, waits for the download.
    private static func downloadForAsyncOpen(_ configuration: Realm.Configuration, _ task: AsyncOpenTask) async throws {
        let realm = try await Realm(configuration: configuration, downloadBeforeOpen: .never)
        guard configuration.syncConfiguration != nil, let session = realm.syncSession else { return }
        task.attach(session)
        realm.instance.isStillOpening.store(true, ordering: .releasing)
        defer { realm.instance.isStillOpening.store(false, ordering: .releasing) }
        try await Realm.waitForDownload(path: realm.instance.path, configuration: configuration)
    }
}
