import Foundation
import OutpostCore

/// Calls the app's functions on the server by name: `user.functions.sum([1, 2])`.
///
///     user.functions.sum([1, 2, 3, 4, 5]) { sum, error in
///         guard case let .int32(value) = sum else { return }
///         assert(value == 15)
///     }
///     let sum = try await user.functions.sum(1, 2, 3, 4, 5)
///
/// The member name is the function's name; the arguments and the result are ``AnyBSON``. Completion handlers run on
/// an arbitrary thread, as in Realm. Calls need no synced Realm open.
@dynamicMemberLookup
@frozen public struct Functions: Sendable {
    private let user: User

    init(user: User) {
        self.user = user
    }

    /// The completion handler of a call: the result, or nil and the error.
    public typealias FunctionCompletionHandler = @Sendable (AnyBSON?, Error?) -> Void

    /// A call taking its arguments as an array and a ``FunctionCompletionHandler``.
    public typealias Function = @Sendable ([AnyBSON], @escaping FunctionCompletionHandler) -> Void

    /// Calls the function named like the member, reporting to a completion handler.
    public subscript(dynamicMember string: String) -> Function {
        let user = user
        return { arguments, completionHandler in
            deliver(completionHandler) { try await user.callFunction(named: string, arguments: arguments) }
        }
    }

    /// The completion handler of a call, as a `Result`.
    public typealias ResultFunctionCompletionHandler = @Sendable (Result<AnyBSON, Error>) -> Void

    /// A call taking its arguments as an array and a ``ResultFunctionCompletionHandler``.
    public typealias ResultFunction = @Sendable ([AnyBSON], @escaping ResultFunctionCompletionHandler) -> Void

    /// Calls the function named like the member, reporting a `Result`.
    @preconcurrency
    public subscript(dynamicMember string: String) -> ResultFunction {
        let user = user
        return { arguments, completionHandler in
            deliver(completionHandler) { try await user.callFunction(named: string, arguments: arguments) }
        }
    }

    /// The function named like the member as an async callable: `try await user.functions.sum(1, 2)`.
    public subscript(dynamicMember string: String) -> FunctionCallable {
        FunctionCallable(name: string, user: user)
    }
}

extension User {
    /// The app's functions, called as this user.
    public var functions: Functions { Functions(user: self) }

    /// `POST …/functions/call` with the arguments in canonical Extended JSON (so `.int32` stays `.int32`).
    func callFunction(named name: String, arguments: [AnyBSON]) async throws -> AnyBSON {
        var json: [JSONValue] = []
        json.reserveCapacity(arguments.count)
        for (i, argument) in arguments.enumerated() {
            json.append(try argument.canonicalExtendedJSON(path: "arguments[\(i)]"))
        }
        let body: JSONValue = .object(["name": .string(name), "arguments": .array(json)])
        guard let answer = try await authorizedRequest(.POST, "functions/call", body: body) else { return .null }
        do {
            return try AnyBSON(extendedJSON: answer)
        } catch {
            throw AppError(.badRequest, "the server's result of function '\(name)' is not valid Extended JSON: \(error)")
        }
    }
}
