import Foundation
import OutpostCore

/// One entry of the server log that the admin API serves.
public struct LogRecord: Sendable, Hashable, Codable {
    public var appId: String
    public var time: Date
    /// What it is about: `auth`, `sync`, `compensating_write`, `schema`, `data_api`, `admin`, `error`.
    public var kind: String
    /// `debug`, `info`, `warning` or `error`.
    public var level: String
    public var message: String
    /// Structured details (for example the rejected writes of a compensating write).
    public var details: Value?

    public init(appId: String, time: Date = Date(), kind: String, level: String, message: String, details: Value? = nil) {
        self.appId = appId
        self.time = time
        self.kind = kind
        self.level = level
        self.message = message
        self.details = details
    }
}
