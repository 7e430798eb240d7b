import Foundation
import Synchronization

extension ObjectId {
    /// Generates a new id unique to this process: the current time in seconds, this process's
    /// 5 random bytes and the next value of a process-wide counter. Safe to call from any thread.
    public static func generate() -> ObjectId {
        generate(secondsSince1970: seconds(of: Date()))
    }

    /// Generates an id for a given time, so tests can control the clock.
    /// The bytes are written in place: no array per id (a bulk insert generates one per object).
    package static func generate(secondsSince1970 seconds: UInt32) -> ObjectId {
        let counter = ObjectIdGenerator.nextCounter()
        let random = ObjectIdGenerator.processRandomWord
        return ObjectId(writingBytes: { raw in
            for i in 0..<4 { raw[i] = UInt8(truncatingIfNeeded: seconds >> (8 * (3 - i))) }
            for i in 0..<5 { raw[4 + i] = UInt8(truncatingIfNeeded: random >> (8 * i)) }
            for i in 0..<3 { raw[9 + i] = UInt8(truncatingIfNeeded: counter >> (8 * (2 - i))) }
        })
    }

    /// The 5 random bytes this process puts in every generated id (bytes 4–8).
    package static var processRandomBytes: [UInt8] { ObjectIdGenerator.processRandom }
}

/// Process-wide state for id generation.
enum ObjectIdGenerator {
    /// Chosen once per process; random rather than derived from host or pid, as current drivers do.
    static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: .min ... .max) }
    /// ``processRandom`` with byte `i` in bits `8 * i` (no array to read per id).
    static let processRandomWord: UInt64 = processRandom.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }

    /// Starts at a random value; only its low 24 bits are used.
    static let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    /// The next 24-bit counter value (wrapping).
    static func nextCounter() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).oldValue & 0xFF_FFFF
    }
}
