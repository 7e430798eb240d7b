/// How much the sync client logs (Realm's levels, least to most detailed).
public enum SyncLogLevel: Int, Sendable {
    case off = 0
    case fatal = 1
    case error = 2
    case warn = 3
    case info = 4
    case detail = 5
    case debug = 6
    case trace = 7
    case all = 8

    /// The level of a server `log` message (`error`, `warn`, `info`, `debug`, …).
    init(serverLevel: String) {
        switch serverLevel.lowercased() {
        case "fatal": self = .fatal
        case "error": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "detail": self = .detail
        case "debug": self = .debug
        case "trace": self = .trace
        default: self = .info
        }
    }
}
