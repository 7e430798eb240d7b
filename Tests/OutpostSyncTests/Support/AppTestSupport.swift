import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Synchronization
import Testing

/// A transport that records every request (`METHOD endpoint`, relative to the app's client API path) and can
/// delay requests to one endpoint, so tests can see and order what the client sends.
final class RecordingTransport: RLMNetworkTransport, @unchecked Sendable {
    // @unchecked Sendable: the only state is in Mutexes.
    private let log = Mutex<[String]>([])
    private let delayed = Mutex<[String: Duration]>([:])

    /// Requests to these endpoints wait this long before they are sent.
    var delays: [String: Duration] {
        get { delayed.withLock { $0 } }
        set { delayed.withLock { $0 = newValue } }
    }

    /// The requests so far, like `POST auth/session` or `GET auth/profile`.
    var requests: [String] { log.withLock { $0 } }

    func clear() { log.withLock { $0.removeAll() } }

    override func sendRequestToServer(_ request: RLMRequest, completion: @escaping @Sendable (RLMResponse) -> Void) {
        let endpoint = request.url.components(separatedBy: "/app/").last.map { $0.split(separator: "/", maxSplits: 1) }
            .flatMap { $0.count == 2 ? String($0[1]) : nil } ?? request.url
        let method = "\(request.method)"
        log.withLock { $0.append("\(method) \(endpoint)") }
        let delay = delays[endpoint]
        Task {
            if let delay { try? await Task.sleep(for: delay) }
            self.forward(request, completion)
        }
    }

    private func forward(_ request: RLMRequest, _ completion: @escaping @Sendable (RLMResponse) -> Void) {
        super.sendRequestToServer(request, completion: completion)
    }
}

/// A client app pointed at a test server, with a temporary root directory.
struct TestApp {
    let server: TestServer
    let root: URL
    let transport: RecordingTransport

    var configuration: AppConfiguration {
        AppConfiguration(baseURL: server.baseURL, transport: transport, rootDirectory: root)
    }

    /// The app (cached: every call returns an app sharing the same users).
    var app: App { App(id: server.appId, configuration: configuration) }

    /// A new App after forgetting the cache, as after a restart of the process.
    func restartedApp() -> App {
        AppState.removeFromCache(appId: server.appId, configuration: configuration)
        return App(id: server.appId, configuration: configuration)
    }

    /// Registers and logs in an email/password user.
    func emailUser(_ email: String = "user-\(UUID().uuidString.prefix(8).lowercased())@example.com",
                   password: String = "password1") async throws -> User {
        try await app.emailPasswordAuth.registerUser(email: email, password: password)
        return try await app.login(credentials: .emailPassword(email: email, password: password))
    }
}

/// Runs `body` against an in-process server (the development app unless given) with a fresh client app whose
/// root directory is removed afterwards.
func withTestApp<T>(
    configuration: AppDefinition = .development(appId: "client-\(UUID().uuidString.prefix(8))"),
    clock: @escaping @Sendable () -> Date = { Date() },
    _ body: (TestApp) async throws -> T
) async throws -> T {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-app-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    return try await withTestServer(configuration: configuration, clock: clock) { server in
        try await body(TestApp(server: server, root: root, transport: RecordingTransport()))
    }
}

/// The error a throwing async expression throws, as an `AppError` (fails the test when it throws something else or
/// nothing).
func appError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any
) async -> AppError? {
    do {
        _ = try await body()
        Issue.record("expected an AppError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as AppError {
        return error
    } catch {
        Issue.record("expected an AppError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
