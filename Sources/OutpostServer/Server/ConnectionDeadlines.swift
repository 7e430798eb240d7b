import NIOCore

/// The timeouts of one HTTP connection as a state machine: events go in, the next deadline and what to do when it
/// passes come out. ``ConnectionDeadlineHandler`` performs the actions.
///
/// A connection is always in one phase, and each phase but two has one deadline:
/// - **head** — a request head is due: from the connection's start, or from the first byte after an idle spell,
///   the whole head must arrive within `headTimeout` (later bytes do not extend it, so a client dribbling a header
///   byte at a time is closed too). Missed: answer 408 and close.
/// - **body** — the request's body is being read: at most `bodyTimeout` between two reads. Missed: 408 when no
///   response has started, then close.
/// - **responding** — the request was read and the server owes the response: no deadline (the route's work).
/// - **idle** — a keep-alive connection between requests: the next request must start within `idleTimeout`.
///   Missed: close.
/// - **upgraded** — a WebSocket: no deadline (the sync connection pings, and closes when pings go unanswered).
/// - **closing** — the answer was sent and the output closed; what the client still sends is read and dropped
///   for at most ``lingerTimeout``, so that it reads the answer instead of a reset, then the connection closes.
struct ConnectionDeadlines {
    /// How long a closing connection drains what the client still sends.
    static let lingerTimeout = TimeAmount.seconds(2)

    enum Phase: Equatable {
        case head(since: NIODeadline)
        case body(lastRead: NIODeadline)
        case responding(nextHeadSince: NIODeadline?)
        case idle(since: NIODeadline)
        case upgraded
        case closing(since: NIODeadline)
    }

    /// What the handler does when the deadline passes.
    enum Expiry: Equatable {
        /// Nothing yet: the deadline moved (wait until ``ConnectionDeadlines/deadline``).
        case wait
        /// Answer `408 Request Timeout`, then close.
        case answerTimeoutAndClose
        /// Close without an answer.
        case close
    }

    let headTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let idleTimeout: TimeAmount
    private(set) var phase: Phase
    /// Requests whose head was read and whose response has not ended.
    private(set) var openResponses = 0
    /// Whether the current response's head was written (a timeout then cannot answer 408).
    private(set) var responseStarted = false

    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount, idleTimeout: TimeAmount, connectedAt now: NIODeadline) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.phase = .head(since: now)
    }

    /// When the current phase expires (nil: it does not).
    var deadline: NIODeadline? {
        switch phase {
        case .head(let since): since + headTimeout
        case .body(let lastRead): lastRead + bodyTimeout
        case .idle(let since): since + idleTimeout
        case .closing(let since): since + Self.lingerTimeout
        case .responding, .upgraded: nil
        }
    }

    /// Bytes arrived from the client.
    mutating func bytesRead(at now: NIODeadline) {
        switch phase {
        case .idle: phase = .head(since: now)
        case .body: phase = .body(lastRead: now)
        case .responding(nil): phase = .responding(nextHeadSince: now)
        case .head, .responding, .upgraded, .closing: break
        }
    }

    /// A request head was decoded.
    mutating func headReceived(at now: NIODeadline) {
        guard isServing else { return }
        openResponses += 1
        phase = .body(lastRead: now)
    }

    /// A request's last part was decoded.
    mutating func requestEnded(at now: NIODeadline) {
        guard isServing else { return }
        phase = openResponses > 0 ? .responding(nextHeadSince: nil) : .idle(since: now)
    }

    /// A response head was written.
    mutating func responseStarted(at now: NIODeadline) {
        responseStarted = true
    }

    /// A response's last part was written.
    mutating func responseEnded(at now: NIODeadline) {
        guard isServing else { return }
        openResponses = max(0, openResponses - 1)
        responseStarted = false
        guard openResponses == 0, case .responding(let nextHeadSince) = phase else { return }
        phase = nextHeadSince.map { .head(since: $0) } ?? .idle(since: now)
    }

    /// The connection became a WebSocket.
    mutating func upgraded() {
        guard isServing else { return }
        phase = .upgraded
    }

    /// The server answered and closed its output; the input is drained until the linger timeout.
    mutating func closing(at now: NIODeadline) {
        if case .closing = phase { return }
        phase = .closing(since: now)
    }

    /// The deadline timer fired at `now`.
    mutating func expired(at now: NIODeadline) -> Expiry {
        guard let deadline, now >= deadline else { return .wait }
        switch phase {
        case .head:
            return .answerTimeoutAndClose
        case .body:
            return responseStarted ? .close : .answerTimeoutAndClose
        case .idle, .closing:
            return .close
        case .responding, .upgraded:
            return .wait
        }
    }

    private var isServing: Bool {
        switch phase {
        case .upgraded, .closing: false
        default: true
        }
    }
}
