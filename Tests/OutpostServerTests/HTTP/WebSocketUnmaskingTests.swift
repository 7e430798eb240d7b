import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
@testable import OutpostServer
import Testing

/// The server's word-at-a-time unmasking gives SwiftNIO's bytes for every length and key, and a frame it unmasked
/// reads as the original payload through `unmaskedData`.
@Suite struct WebSocketUnmaskingTests {
    @Test func unmaskingMatchesSwiftNIOForEveryLengthAndKey() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...40) + [63, 64, 65, 1_000, 65_537] {
            for _ in 0..<5 {
                let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let key = WebSocketMaskingKey((0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) })!
                var expected = ByteBuffer(bytes: payload)
                expected.webSocketMask(key)
                var fast = payload
                fast.withUnsafeMutableBytes { WebSocketUnmasking.unmask($0, key: key) }
                #expect(fast == Array(expected.readableBytesView), "length \(length)")
                fast.withUnsafeMutableBytes { WebSocketUnmasking.unmask($0, key: key) }
                #expect(fast == payload, "unmasking twice gives the payload back")
            }
        }
    }

    @Test func aMaskedFrameReadsAsItsPayload() {
        let payload = Array(#"{"type":"upload","session":1,"changesets":[]}"#.utf8)
        let key = WebSocketMaskingKey([0x12, 0x34, 0x56, 0x78])!
        var masked = ByteBuffer(bytes: payload)
        masked.webSocketMask(key)
        // A slice of a larger buffer, as the frame decoder hands payloads on.
        var wire = ByteBuffer(bytes: [1, 2, 3])
        wire.writeImmutableBuffer(masked)
        wire.moveReaderIndex(forwardBy: 3)
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: key, data: wire)
        let read = WebSocketUnmasking.unmasked(frame)
        #expect(read.maskKey == nil)
        #expect(Array(read.unmaskedData.readableBytesView) == payload)
        #expect(Array(frame.unmaskedData.readableBytesView) == payload, "the frame it was given is unchanged")
        let unmasked = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: payload))
        #expect(Array(WebSocketUnmasking.unmasked(unmasked).data.readableBytesView) == payload)
    }
}
