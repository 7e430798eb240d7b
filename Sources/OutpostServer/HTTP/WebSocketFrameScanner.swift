/// Follows the frame headers of a client's WebSocket byte stream without buffering it, to find a frame that breaks
/// RFC 6455 before anything decodes it: every frame a client sends must be masked (§5.1).
///
/// It keeps at most one frame header (14 bytes) and the count of payload bytes left to skip.
struct WebSocketFrameScanner {
    enum Verdict: Equatable {
        case valid
        /// A frame without a masking key: close with 1002.
        case unmaskedFrame
    }

    private var header: [UInt8] = []
    private var payloadLeft: UInt64 = 0

    /// Scans the next bytes of the stream.
    mutating func scan(_ bytes: some Collection<UInt8>) -> Verdict {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if payloadLeft > 0 {
                let skip = min(UInt64(bytes.distance(from: index, to: bytes.endIndex)), payloadLeft)
                index = bytes.index(index, offsetBy: Int(skip))
                payloadLeft -= skip
                continue
            }
            header.append(bytes[index])
            index = bytes.index(after: index)
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return .unmaskedFrame }
            let shortLength = header[1] & 0x7F
            let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
            guard header.count == 2 + lengthBytes + 4 else { continue }
            payloadLeft = lengthBytes == 0
                ? UInt64(shortLength) : header[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        return .valid
    }
}
