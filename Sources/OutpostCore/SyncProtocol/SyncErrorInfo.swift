/// The body of an `error` message, with the original's keys (reference/sync.md §7.3).
public struct SyncErrorInfo: Hashable, Sendable {
    /// The session it concerns; 0 for a connection-level error.
    public var session: Int64
    public var code: SyncErrorCode
    public var message: String
    /// False for fatal errors: the client must not retry the session.
    public var tryAgain: Bool
    public var action: SyncErrorAction
    public var shouldClientReset: Bool
    public var isRecoveryModeDisabled: Bool
    public var logURL: String?
    /// For 231: the writes that were refused.
    public var rejectedUpdates: [RejectedUpdate]?
    /// For 231: the server version of the changeset that undoes the refused writes for this client.
    public var compensatingWriteServerVersion: Int64?
    /// For 231: the client version of the changeset that held them.
    public var rejectedClientVersion: Int64?

    public init(
        session: Int64, code: SyncErrorCode, message: String, tryAgain: Bool, action: SyncErrorAction,
        shouldClientReset: Bool = false, isRecoveryModeDisabled: Bool = false, logURL: String? = nil,
        rejectedUpdates: [RejectedUpdate]? = nil, compensatingWriteServerVersion: Int64? = nil,
        rejectedClientVersion: Int64? = nil
    ) {
        self.session = session
        self.code = code
        self.message = message
        self.tryAgain = tryAgain
        self.action = action
        self.shouldClientReset = shouldClientReset
        self.isRecoveryModeDisabled = isRecoveryModeDisabled
        self.logURL = logURL
        self.rejectedUpdates = rejectedUpdates
        self.compensatingWriteServerVersion = compensatingWriteServerVersion
        self.rejectedClientVersion = rejectedClientVersion
    }

    /// The error a protocol failure produces, fatal unless the code is a warning.
    public init(session: Int64, error: SyncProtocolError) {
        let fatal = error.code.isConnectionLevel || error.code != .compensatingWrite
        self.init(session: session, code: error.code, message: error.message, tryAgain: !fatal,
                  action: fatal ? (error.code.isConnectionLevel ? .protocolViolation : .applicationBug) : .warning)
    }

    package var json: JSONValue {
        var o: [String: JSONValue] = [
            "type": "error", "session": .int(session), "code": .int(Int64(code.rawValue)), "message": .string(message),
            "tryAgain": .bool(tryAgain), "action": .string(action.rawValue), "shouldClientReset": .bool(shouldClientReset),
            "isRecoveryModeDisabled": .bool(isRecoveryModeDisabled), "logURL": logURL.map { .string($0) } ?? .null,
        ]
        if let rejectedUpdates { o["rejectedUpdates"] = .array(rejectedUpdates.map(\.json)) }
        if let v = compensatingWriteServerVersion { o["compensatingWriteServerVersion"] = .int(v) }
        if let v = rejectedClientVersion { o["rejectedClientVersion"] = .int(v) }
        return .object(o)
    }

    package init(json: JSONValue) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: "message")
        var rejected: [RejectedUpdate]?
        if r.has("rejectedUpdates") {
            rejected = []
            for (i, item) in try r.array("rejectedUpdates").enumerated() {
                rejected?.append(try RejectedUpdate(json: item, path: "message.rejectedUpdates[\(i)]"))
            }
        }
        let actionText = try r.string("action")
        self.init(
            session: try r.version("session"), code: SyncErrorCode(rawValue: Int(try r.int("code"))),
            message: try r.string("message"), tryAgain: try r.bool("tryAgain"),
            action: SyncErrorAction(rawValue: actionText) ?? .applicationBug,
            shouldClientReset: r.has("shouldClientReset") ? try r.bool("shouldClientReset") : false,
            isRecoveryModeDisabled: r.has("isRecoveryModeDisabled") ? try r.bool("isRecoveryModeDisabled") : false,
            logURL: r.has("logURL") ? try r.string("logURL") : nil, rejectedUpdates: rejected,
            compensatingWriteServerVersion: try r.optionalInt("compensatingWriteServerVersion"),
            rejectedClientVersion: try r.optionalInt("rejectedClientVersion"))
    }
}
