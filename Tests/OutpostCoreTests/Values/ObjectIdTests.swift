import Foundation
import OutpostCore
import Testing

@Suite struct ObjectIdTests {
    @Test func defaultInitIsAllZero() {
        let id = ObjectId()
        #expect(id.stringValue == "000000000000000000000000")
        #expect(id.bytes == [UInt8](repeating: 0, count: 12))
        #expect(id.timestamp == Date(timeIntervalSince1970: 0))
    }

    @Test func parsePrintRoundTrip() throws {
        let text = "5f1b2c3d4e5f60718293a4b5"
        let id = try ObjectId(string: text)
        #expect(id.stringValue == text)
        #expect(id.description == text)
        #expect(id.bytes == [0x5F, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F, 0x60, 0x71, 0x82, 0x93, 0xA4, 0xB5])
        #expect(try ObjectId(string: id.stringValue) == id)
    }

    @Test func parsingIsCaseInsensitiveAndPrintsLowercase() throws {
        let upper = try ObjectId(string: "ABCDEF0123456789ABCDEF01")
        let lower = try ObjectId(string: "abcdef0123456789abcdef01")
        #expect(upper == lower)
        #expect(upper.hashValue == lower.hashValue)
        #expect(upper.stringValue == "abcdef0123456789abcdef01")
    }

    /// Every byte value prints as its two lowercase digits, in all three ways of writing the hex, and parses back.
    @Test func everyByteValuePrintsAsTwoLowercaseDigitsAndParsesBack() throws {
        for start in stride(from: 0, to: 256, by: 12) {
            let bytes = (0..<12).map { UInt8((start + $0) % 256) }
            let id = try ObjectId(bytes: bytes)
            let expected = bytes.map { String(format: "%02x", $0) }.joined()
            #expect(id.stringValue == expected)
            var out = Array("prefix".utf8)
            id.appendHex(to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "prefix" + expected)
            out = Array("x".utf8)
            ObjectId.appendHex(of: bytes, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x" + expected)
            #expect(try ObjectId(string: expected) == id)
            #expect(try ObjectId(string: expected.uppercased()) == id)
        }
    }

    @Test(arguments: [
        ("xyz", "Invalid ObjectId string 'xyz': expected 24 hexadecimal characters, found 'x' at offset 0", 0),
        ("", "Invalid ObjectId string '': expected 24 hexadecimal characters, got 0", nil),
        ("5f1b2c3d4e5f60718293a4b", "Invalid ObjectId string '5f1b2c3d4e5f60718293a4b': expected 24 hexadecimal characters, got 23", nil),
        ("5f1b2c3d4e5f60718293a4b5a", "Invalid ObjectId string '5f1b2c3d4e5f60718293a4b5a': expected 24 hexadecimal characters, got 25", nil),
        ("5f1b2c3d4e5g60718293a4b5", "Invalid ObjectId string '5f1b2c3d4e5g60718293a4b5': expected 24 hexadecimal characters, found 'g' at offset 11", 11),
        (" 5f1b2c3d4e5f60718293a4b", "Invalid ObjectId string ' 5f1b2c3d4e5f60718293a4b': expected 24 hexadecimal characters, found ' ' at offset 0", 0),
        ("5f1b2c3d4e5f60718293a4bé", "Invalid ObjectId string '5f1b2c3d4e5f60718293a4bé': expected 24 hexadecimal characters, found 'é' at offset 23", 23),
        // The last digit wrong, and 24 UTF-8 bytes that are 23 characters.
        ("5f1b2c3d4e5f60718293a4bz", "Invalid ObjectId string '5f1b2c3d4e5f60718293a4bz': expected 24 hexadecimal characters, found 'z' at offset 23", 23),
        ("5f1b2c3d4e5f60718293a4é", "Invalid ObjectId string '5f1b2c3d4e5f60718293a4é': expected 24 hexadecimal characters, found 'é' at offset 22", 22),
    ] as [(String, String, Int?)])
    func invalidStringsThrowTypedErrors(text: String, message: String, position: Int?) {
        do {
            _ = try ObjectId(string: text)
            Issue.record("expected \(text) to be rejected")
        } catch let error as ValueError {
            #expect(error.code == .invalidObjectIdString)
            #expect(error.message == message)
            #expect(error.description == message)
            #expect(error.text == text)
            #expect(error.position == position)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// Every character U+0000–U+00FF in each position of a valid id (the first and second digit of a byte): only
    /// the 22 hexadecimal digits parse, to the id with that digit; any other is refused at its offset (a character of
    /// two UTF-8 bytes makes the text too long).
    @Test func everyCharacterUpToFFInEveryDigitPosition() throws {
        let valid = "5f1b2c3d4e5f60718293a4b5"
        for position in [0, 1, 10, 11, 22, 23] {
            for scalar in (0...255).compactMap(Unicode.Scalar.init) {
                var characters = Array(valid)
                characters[position] = Character(scalar)
                let text = String(characters)
                let isHex = scalar.isASCII && Character(scalar).isHexDigit
                if isHex {
                    #expect(try ObjectId(string: text).stringValue == text.lowercased(), "\(text)")
                } else {
                    #expect(throws: ValueError.self, "\(scalar.value) at \(position)") { try ObjectId(string: text) }
                }
            }
        }
    }

    @Test func veryLongInvalidTextIsShortenedInMessage() {
        let text = String(repeating: "a", count: 100)
        #expect {
            try ObjectId(string: text)
        } throws: { error in
            let error = error as? ValueError
            return error?.message == "Invalid ObjectId string '\(String(repeating: "a", count: 64))…' (100 characters): "
                + "expected 24 hexadecimal characters, got 100" && error?.text == text
        }
    }

    @Test func errorCodeMatchesInCatchClause() {
        var matched = false
        do {
            _ = try ObjectId(string: "nope")
        } catch ValueError.Code.invalidObjectIdString {
            matched = true
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(matched)
    }

    @Test func bytesRoundTripAndLengthCheck() throws {
        let raw: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255]
        let id = try ObjectId(bytes: raw)
        #expect(id.bytes == raw)
        #expect(id.withUnsafeBytes { Array($0) } == raw)
        #expect(id.withUnsafeBytes { $0.count } == 12)
        #expect(try ObjectId(bytes: raw[...]) == id)
        #expect(try ObjectId(bytes: Data(raw)) == id)
        #expect(id.stringValue == "0102030405060708090a0bff")

        for count in [0, 11, 13] {
            #expect {
                try ObjectId(bytes: [UInt8](repeating: 7, count: count))
            } throws: { error in
                let error = error as? ValueError
                return error?.code == .invalidObjectIdBytes
                    && error?.message == "Invalid ObjectId bytes: expected 12 bytes, got \(count)"
            }
        }
    }

    @Test func orderingIsBytewiseLexicographic() throws {
        // Pairs that differ in one byte, in each word, including bytes whose high bit is set
        // (a signed or little-endian comparison would get these wrong).
        var ids: [ObjectId] = []
        for position in 0..<12 {
            for value: UInt8 in [0x01, 0x7F, 0x80, 0xFF] {
                var raw = [UInt8](repeating: 0x10, count: 12)
                raw[position] = value
                ids.append(try ObjectId(bytes: raw))
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            ids.append(try ObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        for a in ids {
            for b in ids {
                let memcmpLess = a.bytes.lexicographicallyPrecedes(b.bytes)
                #expect((a < b) == memcmpLess)
                #expect((a.stringValue < b.stringValue) == memcmpLess)
                #expect((a == b) == (a.bytes == b.bytes))
            }
        }
    }

    @Test func timestampIsFirstFourBytesBigEndian() throws {
        let id = try ObjectId(string: "5f5b4f37ffffffffffffffff")
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x5F5B_4F37))
        let max = try ObjectId(string: "ffffffff0000000000000000")
        #expect(max.timestamp == Date(timeIntervalSince1970: 4_294_967_295))
    }

    @Test func initWithTimestampMachineAndProcess() {
        let date = Date(timeIntervalSince1970: 1_600_000_000.75)
        let first = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0D0E)
        let second = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0D0E)
        // Seconds are truncated and stored big-endian.
        #expect(first.timestamp == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(Array(first.bytes[0..<4]) == [0x5F, 0x5E, 0x10, 0x00])
        // Machine (3 bytes) and process (2 bytes) ids in realm-core's little-endian layout.
        #expect(Array(first.bytes[4..<9]) == [0x0C, 0x0B, 0x0A, 0x0E, 0x0D])
        // The counter advances, so two ids made in the same second differ and sort in order
        // (unless the 24-bit counter wrapped between them).
        #expect(first != second)
        #expect(counterStep(from: first, to: second) >= 1)
        // Bytes beyond the low 3 / 2 are ignored.
        let wide = ObjectId(timestamp: date, machineId: 0x7F0A_0B0C, processId: 0x7F0D_0E)
        #expect(Array(wide.bytes[4..<9]) == [0x0C, 0x0B, 0x0A, 0x0E, 0x0D])
    }

    @Test func generatedIdsAreUniqueAndShareTheProcessBytes() {
        let ids = (0..<10_000).map { _ in ObjectId.generate() }
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids.map { Array($0.bytes[4..<9]) }) == [ObjectId.processRandomBytes])
        for (a, b) in zip(ids, ids.dropFirst()) {
            #expect(counterStep(from: a, to: b) >= 1)
        }
    }

    @Test func generatedTimestampIsNow() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let id = ObjectId.generate()
        let after = Date().timeIntervalSince1970.rounded(.down)
        #expect(id.timestamp.timeIntervalSince1970 >= before)
        #expect(id.timestamp.timeIntervalSince1970 <= after)
    }

    @Test func generatedIdsSortByTime() {
        // Later seconds sort after earlier ones whatever the counter does.
        let ids = [1_700_000_002, 1_700_000_000, 1_700_000_001, 1_600_000_000].map {
            ObjectId.generate(secondsSince1970: UInt32($0))
        }
        let sorted = ids.sorted()
        let seconds = sorted.map(\.timestamp.timeIntervalSince1970)
        #expect(seconds == [1_600_000_000, 1_700_000_000, 1_700_000_001, 1_700_000_002])
        // Within one second, creation order is sort order (barring a counter wrap).
        let sameSecond = (0..<100).map { _ in ObjectId.generate(secondsSince1970: 1_700_000_000) }
        let wrapped = zip(sameSecond, sameSecond.dropFirst()).contains { counter(of: $1) < counter(of: $0) }
        if !wrapped {
            #expect(sameSecond.sorted() == sameSecond)
        }
    }

    @Test func generateIsThreadSafe() async {
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in ObjectId.generate() } }
            }
            var all: [ObjectId] = []
            for await chunk in group { all += chunk }
            return all
        }
        #expect(ids.count == 16_000)
        #expect(Set(ids).count == 16_000)
    }

    @Test func codableRoundTripAsString() throws {
        let id = try ObjectId(string: "5f1b2c3d4e5f60718293a4b5")
        let data = try JSONEncoder().encode([id])
        #expect(String(decoding: data, as: UTF8.self) == #"["5f1b2c3d4e5f60718293a4b5"]"#)
        #expect(try JSONDecoder().decode([ObjectId].self, from: data) == [id])

        let generated = ObjectId.generate()
        #expect(try JSONDecoder().decode(ObjectId.self, from: JSONEncoder().encode(generated)) == generated)
    }

    @Test func decodingInvalidTextIsADataCorruptedError() {
        let json = Data(#"["not an id"]"#.utf8)
        #expect {
            try JSONDecoder().decode([ObjectId].self, from: json)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("Invalid ObjectId string 'not an id'")
        }
    }

    @Test func stringLiteral() {
        let id: ObjectId = "000102030405060708090a0b"
        #expect(id.bytes == Array(0..<12))
    }

    @Test func hashingFollowsEquality() throws {
        let a = try ObjectId(string: "000000000000000000000001")
        let b = try ObjectId(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b, ObjectId()]).count == 2)
    }

    /// How far the shared 24-bit counter advanced between two ids (other tests running in parallel
    /// also advance it), or 0 if it did not move forward by a plausible amount.
    private func counterStep(from a: ObjectId, to b: ObjectId) -> UInt32 {
        let step = (counter(of: b) &- counter(of: a)) & 0xFF_FFFF
        return step < 1_000_000 ? step : 0
    }

    private func counter(of id: ObjectId) -> UInt32 {
        id.bytes[9..<12].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
