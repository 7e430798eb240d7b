@testable import OutpostServer
import Testing

/// ``WebSocketFrameScanner`` finds an unmasked frame among masked ones, whatever the split of the byte stream.
@Suite struct WebSocketFrameScannerTests {
    static func frame(masked: Bool, length: Int, opcode: UInt8 = 0x1) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        switch length {
        case ..<126: bytes.append(mask | UInt8(length))
        case ..<65_536: bytes += [mask | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: bytes += [mask | 127] + (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) }
        }
        if masked { bytes += [9, 8, 7, 6] }
        // Payload bytes that look like frame headers, to prove they are skipped.
        return bytes + [UInt8](repeating: 0x81, count: length)
    }

    @Test func everySplitOfMaskedFramesIsValid() {
        let stream = Self.frame(masked: true, length: 5) + Self.frame(masked: true, length: 300)
            + Self.frame(masked: true, length: 70_000) + Self.frame(masked: true, length: 0, opcode: 0x9)
        for chunk in [1, 2, 3, 7, 13, 4_096, stream.count] {
            var scanner = WebSocketFrameScanner()
            var verdicts: [WebSocketFrameScanner.Verdict] = []
            var index = 0
            while index < stream.count {
                verdicts.append(scanner.scan(stream[index..<min(index + chunk, stream.count)]))
                index += chunk
            }
            #expect(verdicts.allSatisfy { $0 == .valid }, "chunk \(chunk)")
        }
    }

    @Test func anUnmaskedFrameAfterMaskedOnesIsFound() {
        for unmasked in [Self.frame(masked: false, length: 3), Self.frame(masked: false, length: 0, opcode: 0x9)] {
            var scanner = WebSocketFrameScanner()
            #expect(scanner.scan(Self.frame(masked: true, length: 200)) == .valid)
            #expect(scanner.scan(unmasked.prefix(1)) == .valid)
            #expect(scanner.scan(unmasked.dropFirst()) == .unmaskedFrame)
        }
    }
}
