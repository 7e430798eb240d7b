import Foundation
import Synchronization
import _CryptoExtras
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The custom-token provider's keys fetched from its JWK URI (``AppDefinition/CustomToken/jwkURI``), cached.
///
/// - The set is fetched at the first login. Once it is ``maxAge`` old, the next login is checked with it as it is
///   and starts a fetch in the background.
/// - A token whose `kid` the set lacks (the provider rotated its keys) waits for a new fetch, at most one per
///   ``refetchInterval``, so tokens with made-up ids cannot flood the provider.
/// - Logins that need a fetch while one runs wait for that one.
/// - When a fetch fails (the provider is down, the answer is not a key set), the keys fetched before keep being used
///   for up to ``staleLimit``; with none, the login is refused with `signingKeysUnavailable` (HTTP 503), and for
///   ``refetchInterval`` the failure is answered without asking the provider again.
/// - What went wrong goes to the server log (`report`), never to the client: the URI may name internal hosts.
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

    typealias Fetched = Result<JSONWebKeySet, FetchError>

    let url: URL
    /// Writes a line to the server log: level ("info", "error"), message.
    private let report: @Sendable (String, String) async -> Void
    private let state = Mutex(State())

    private struct State {
        var set: JSONWebKeySet?
        var fetchedAt: Date?
        /// When the last fetch began, and why it failed if it did.
        var lastAttempt: Date?
        var lastFailure: FetchError?
        var inFlight: Task<Fetched, Never>?
    }

    struct FetchError: Error, CustomStringConvertible {
        var description: String
    }

    /// What a login does with the cache.
    private enum Plan {
        case use([_RSA.Signing.PublicKey])
        case wait(Task<Fetched, Never>, standIn: JSONWebKeySet?)
        case fail
    }

    init(url: URL, report: @escaping @Sendable (String, String) async -> Void) {
        self.url = url
        self.report = report
    }

    /// The keys that may have signed a token with this `kid` (every key when it names none).
    ///
    /// - Throws: ``AuthError`` `invalidSignature` when the set has no key of that id, `signingKeysUnavailable`
    ///   when no set can be had.
    func keys(for id: String?, now: Date) async throws(AuthError) -> [_RSA.Signing.PublicKey] {
        switch plan(for: id, now: now) {
        case .use(let keys):
            return try Self.found(keys, id: id)
        case .fail:
            throw Self.unavailable
        case .wait(let task, let standIn):
            switch await task.value {
            case .success(let set):
                return try Self.found(set.keys(for: id), id: id)
            case .failure:
                guard let keys = standIn?.keys(for: id), !keys.isEmpty else { throw Self.unavailable }
                return keys
            }
        }
    }

    private func plan(for id: String?, now: Date) -> Plan {
        state.withLock { state in
            let age = state.fetchedAt.map { now.timeIntervalSince($0) }
            // Keys fetched before that may stand in while the set cannot be fetched.
            let standIn = age.map { $0 < Self.staleLimit } == true ? state.set : nil
            let known = standIn?.keys(for: id) ?? []
            let recentlyTried = state.lastAttempt.map { now.timeIntervalSince($0) < Self.refetchInterval } ?? false
            if !known.isEmpty {
                // A known key is used at once; a set past its age is fetched again in the background.
                if let age, age >= Self.maxAge, state.inFlight == nil, !recentlyTried { _ = startFetch(&state, now: now) }
                return .use(known)
            }
            if let running = state.inFlight { return .wait(running, standIn: standIn) }
            if recentlyTried {
                // An unknown id, or no set: the provider is not asked again yet. A set that was fetched fine
                // lacks the id (401); a failed fetch makes it a 503.
                return state.lastFailure == nil && standIn != nil ? .use([]) : .fail
            }
            return .wait(startFetch(&state, now: now), standIn: standIn)
        }
    }

    /// Starts a fetch; its outcome goes into the cache before anyone waiting for it resumes.
    private func startFetch(_ state: inout State, now: Date) -> Task<Fetched, Never> {
        state.lastAttempt = now
        state.lastFailure = nil
        let task = Task<Fetched, Never> { [url, report] in
            let result = await Self.download(url)
            self.state.withLock { state in
                state.inFlight = nil
                switch result {
                case .success(let set):
                    state.set = set
                    state.fetchedAt = now
                case .failure(let error):
                    state.lastFailure = error
                }
            }
            switch result {
            case .success(let set): await report("info", "custom-token keys: fetched \(set.keys.count) from \(url)")
            case .failure(let error): await report("error", "custom-token keys: \(error)")
            }
            return result
        }
        state.inFlight = task
        return task
    }

    private static func download(_ url: URL) async -> Fetched {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        do {
            data = try await LimitedDownload.data(for: request, limit: maxSize)
        } catch {
            return .failure(FetchError(description: "cannot fetch \(url): \(error)"))
        }
        do {
            return .success(try JSONWebKeySet(parsing: String(decoding: data, as: UTF8.self)))
        } catch {
            return .failure(FetchError(description: "\(url) is not a usable JSON Web Key Set: \(error)"))
        }
    }

    private static func found(_ keys: [_RSA.Signing.PublicKey], id: String?) throws(AuthError) -> [_RSA.Signing.PublicKey] {
        guard keys.isEmpty else { return keys }
        throw AuthError(.invalidSignature, "invalid custom auth token: no signing key of the identity provider has its 'kid'")
    }

    private static let unavailable = AuthError(
        .signingKeysUnavailable, "the custom-token provider's signing keys are unavailable; try again later")
}
