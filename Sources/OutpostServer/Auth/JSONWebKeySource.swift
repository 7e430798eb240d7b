import Foundation
import Logging
import Synchronization
import _CryptoExtras
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The custom-token provider's keys fetched from its JWK URI (``AppConfiguration/CustomToken/jwkURI``), cached.
///
/// - The set is fetched at the first login and again once it is ``maxAge`` old.
/// - A token whose `kid` the cached set lacks (the provider rotated its keys) fetches the set again, at most once
///   per ``refetchInterval``, so a flood of tokens with made-up ids cannot flood the provider.
/// - When a fetch fails (the provider is down, the answer is not a key set), the keys fetched before keep being
///   used for up to ``staleLimit``; with none, the login is refused with `signingKeysUnavailable` (HTTP 503) and
///   the failure is remembered for ``refetchInterval``.
/// - Logins at the same time share one fetch.
///
/// Outpost-only; App Services' "Use JWK URI" does the same without saying how often it fetches.
final class JSONWebKeySource: Sendable {
    /// How long a fetched set is used before it is fetched again.
    static let maxAge: TimeInterval = 600
    /// The shortest time between two fetches caused by unknown key ids or failures.
    static let refetchInterval: TimeInterval = 30
    /// How long keys fetched before may stand in when the set cannot be fetched.
    static let staleLimit: TimeInterval = 86_400
    /// The largest key set read (identity providers publish a few kilobytes).
    static let maxSize = 1 << 20

    let url: URL
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var set: JSONWebKeySet?
        var fetchedAt: Date?
        /// When the last fetch began, and why it failed if it did.
        var lastAttempt: Date?
        var lastFailure: String?
        var inFlight: Task<Result<JSONWebKeySet, FetchError>, Never>?
    }

    struct FetchError: Error, CustomStringConvertible {
        var description: String
    }

    init(url: URL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    /// The keys that may have signed a token with this `kid` (every key when it names none).
    ///
    /// - Throws: ``AuthError`` `invalidSignature` when the set has no key of that id, `signingKeysUnavailable`
    ///   when no set can be had.
    func keys(for id: String?, now: Date) async throws(AuthError) -> [_RSA.Signing.PublicKey] {
        let snapshot = state.withLock { $0 }
        let recentlyTried = snapshot.lastAttempt.map { now.timeIntervalSince($0) < Self.refetchInterval } ?? false
        let age = snapshot.fetchedAt.map { now.timeIntervalSince($0) }
        // Keys fetched before that may stand in while the set cannot be fetched.
        let standIn = age.map { $0 < Self.staleLimit } == true ? snapshot.set : nil
        if let set = snapshot.set, let age, age < Self.maxAge {
            let keys = set.keys(for: id)
            if !keys.isEmpty || recentlyTried { return try Self.found(keys, id: id, url: url) }
        } else if recentlyTried, let failure = snapshot.lastFailure {
            // The last fetch failed a moment ago: the provider is not asked again yet.
            if let standIn { return try Self.found(standIn.keys(for: id), id: id, url: url) }
            throw Self.unavailable(url, failure)
        }
        switch await fetch(now: now) {
        case .success(let set):
            return try Self.found(set.keys(for: id), id: id, url: url)
        case .failure(let error):
            if let standIn {
                logger.warning("custom-token keys: \(error); using the keys fetched before")
                return try Self.found(standIn.keys(for: id), id: id, url: url)
            }
            throw Self.unavailable(url, error.description)
        }
    }

    /// One fetch of the set, shared by the logins waiting for it; the cache is updated with its outcome.
    private func fetch(now: Date) async -> Result<JSONWebKeySet, FetchError> {
        let task = state.withLock { state in
            if let running = state.inFlight { return running }
            state.lastAttempt = now
            let url = url
            let task = Task { await Self.download(url) }
            state.inFlight = task
            return task
        }
        let result = await task.value
        state.withLock { state in
            guard state.inFlight == task else { return }
            state.inFlight = nil
            switch result {
            case .success(let set):
                state.set = set
                state.fetchedAt = now
                state.lastFailure = nil
            case .failure(let error):
                state.lastFailure = error.description
            }
        }
        switch result {
        case .success(let set): logger.info("custom-token keys: fetched \(set.keys.count) from \(url)")
        case .failure(let error): logger.error("custom-token keys: \(error)")
        }
        return result
    }

    private static func download(_ url: URL) async -> Result<JSONWebKeySet, FetchError> {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            return .failure(FetchError(description: "cannot fetch \(url): \(error.localizedDescription)"))
        }
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            return .failure(FetchError(description: "\(url) answered HTTP \(http.statusCode)"))
        }
        guard data.count <= maxSize else {
            return .failure(FetchError(description: "\(url) answered more than \(maxSize) bytes"))
        }
        do {
            return .success(try JSONWebKeySet(parsing: String(decoding: data, as: UTF8.self)))
        } catch {
            return .failure(FetchError(description: "\(url) is not a usable JSON Web Key Set: \(error)"))
        }
    }

    private static func found(_ keys: [_RSA.Signing.PublicKey], id: String?, url: URL) throws(AuthError)
        -> [_RSA.Signing.PublicKey]
    {
        guard keys.isEmpty else { return keys }
        throw AuthError(.invalidSignature,
            "invalid custom auth token: the provider's key set (\(url)) has no RS256 key '\(id ?? "")'")
    }

    private static func unavailable(_ url: URL, _ reason: String) -> AuthError {
        AuthError(.signingKeysUnavailable,
                  "the custom-token provider's signing keys are unavailable (\(reason)); try again later")
    }
}
