/// Runs an async App call for a completion-handler form, calling `completion` with nil or the error on an arbitrary
/// thread (Realm's completion forms of the same calls).
func deliver(_ completion: @escaping @Sendable (Error?) -> Void, _ body: @escaping @Sendable () async throws -> Void) {
    Task {
        do {
            try await body()
            completion(nil)
        } catch {
            completion(error)
        }
    }
}

/// The same for a call with a value: `completion(value, nil)` or `completion(nil, error)` (Realm's Objective-C forms).
func deliver<T: Sendable>(_ completion: @escaping @Sendable (T?, Error?) -> Void, _ body: @escaping @Sendable () async throws -> T) {
    Task {
        do { completion(try await body(), nil) } catch { completion(nil, error) }
    }
}

/// The same with a `Result` (Realm Swift's forms).
func deliver<T: Sendable>(
    _ completion: @escaping @Sendable (Result<T, Error>) -> Void, _ body: @escaping @Sendable () async throws -> T
) {
    Task {
        do { completion(.success(try await body())) } catch { completion(.failure(error)) }
    }
}
