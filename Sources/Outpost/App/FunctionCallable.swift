import Foundation

/// One of the app's functions as an async callable, from ``Functions``' dynamic member lookup:
///
///     guard case let .int32(sum) = try await user.functions.sum(1, 2, 3, 4, 5) else { return }
@dynamicCallable
public struct FunctionCallable: Sendable {
    fileprivate let name: String
    fileprivate let user: User

    init(name: String, user: User) {
        self.name = name
        self.user = user
    }

    /// :nodoc:
    @available(*, deprecated, message: "Specify args separately without wrapping them in an array")
    public func dynamicallyCall(withArguments args: [[AnyBSON]]) async throws -> AnyBSON {
        try await user.callFunction(named: name, arguments: args.first ?? [])
    }

    /// Calls the function with the arguments and returns its result.
    public func dynamicallyCall(withArguments args: [AnyBSON]) async throws -> AnyBSON {
        try await user.callFunction(named: name, arguments: args)
    }
}
