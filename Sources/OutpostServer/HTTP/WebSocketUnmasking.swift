import NIOCore
import NIOWebSocket
import HummingbirdWebSocket

/// Unmasks the frames clients send eight bytes at a time, before the WebSocket handler reads them.
///
/// Every frame a client sends is masked (RFC 6455 §5.3): its payload is XORed with a 4-byte key. SwiftNIO's
/// `unmaskedData` undoes that one byte at a time, with a remainder per byte — for a session uploading thousands of
/// objects per second, a few per cent of the server's CPU. This extension, applied to every connection without
/// negotiation (it changes nothing on the wire), unmasks the payload here and clears the frame's key, so that
/// `unmaskedData` hands the payload on as it is. A frame that carries extension data is left to SwiftNIO.
struct WebSocketUnmasking: WebSocketExtension {
    let name = "outpost-unmasking"

    func processReceivedFrame(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        Self.unmasked(frame)
    }

    /// The frame with its payload unmasked and no key (the same frame when it has no key or has extension data).
    static func unmasked(_ frame: WebSocketFrame) -> WebSocketFrame {
        guard let key = frame.maskKey, frame.extensionData == nil else { return frame }
        var frame = frame
        frame.data.withUnsafeMutableReadableBytes { unmask($0, key: key) }
        frame.maskKey = nil
        return frame
    }

    func processFrameToSend(_ frame: WebSocketFrame, context: WebSocketExtensionContext) async throws -> WebSocketFrame {
        frame
    }

    func shutdown() async {}

    /// XORs `bytes` with `key` repeated from its first byte (masking and unmasking are the same operation).
    static func unmask(_ bytes: UnsafeMutableRawBufferPointer, key: WebSocketMaskingKey) {
        let k = Array(key)
        var word: UInt64 = 0
        for i in 0..<8 { word |= UInt64(k[i % 4]) << (8 * i) }
        let key64 = UInt64(littleEndian: word)
        var i = 0
        while i + 8 <= bytes.count {
            let chunk = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            bytes.storeBytes(of: chunk ^ key64, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < bytes.count {
            bytes[i] ^= k[i % 4]
            i += 1
        }
    }
}
