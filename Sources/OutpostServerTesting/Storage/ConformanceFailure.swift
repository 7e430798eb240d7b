import OutpostServer

/// A conformance check that did not hold: which check, where, and what was expected.
public struct ConformanceFailure: Error, CustomStringConvertible {
    public var check: String
    public var message: String
    public var file: String
    public var line: Int

    public init(check: String = "", message: String, file: String = #fileID, line: Int = #line) {
        self.check = check
        self.message = message
        self.file = file
        self.line = line
    }

    public var description: String { "\(check) failed at \(file):\(line): \(message)" }
}

/// The expectations the checks use; each throws a ``ConformanceFailure``.
enum Expect {
    static func that(
        _ condition: Bool, _ message: @autoclosure () -> String, file: String = #fileID, line: Int = #line
    ) throws {
        if !condition { throw ConformanceFailure(message: message(), file: file, line: line) }
    }

    static func equal<T: Equatable>(
        _ actual: T, _ expected: T, _ what: String, file: String = #fileID, line: Int = #line
    ) throws {
        if actual != expected {
            throw ConformanceFailure(
                message: "\(what): expected \(String(reflecting: expected)), got \(String(reflecting: actual))",
                file: file, line: line)
        }
    }

    /// Expects `body` to throw a ``StorageError`` with `code`.
    static func throwsStorageError(
        _ code: StorageError.Code, _ what: String, file: String = #fileID, line: Int = #line,
        _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch let error as StorageError where error.code == code {
            return
        } catch {
            throw ConformanceFailure(
                message: "\(what): expected StorageError.\(code), got \(String(reflecting: error))", file: file,
                line: line)
        }
        throw ConformanceFailure(message: "\(what): expected StorageError.\(code), nothing was thrown", file: file, line: line)
    }
}
