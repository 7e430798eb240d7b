import OutpostCore

/// Sends a connection's frames one at a time, in the order they were handed over.
actor FrameWriter {
    private let send: @Sendable (String) async throws -> Void
    private(set) var isClosed = false

    init(send: @escaping @Sendable (String) async throws -> Void) {
        self.send = send
    }

    func send(_ message: ServerMessage) async {
        await send(text: message.text)
    }

    /// Sends a message already written as text.
    func send(text: String) async {
        guard !isClosed else { return }
        do {
            try await send(text)
        } catch {
            isClosed = true
        }
    }
}
