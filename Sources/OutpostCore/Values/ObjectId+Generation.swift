import Foundation
import Synchronization

extension ObjectId {
    /// Generates a new id unique to this process: the current time in seconds, this process's
    /// 5 random bytes and the next value of a process-wide counter. Safe to call from any thread.
    public static func generate() -> ObjectId {
        generate(secondsSince1970: seconds(of: Date()))
    }

    /// Generates an id for a given time, so tests can control the clock.
    package static func generate(secondsSince1970 seconds: UInt32) -> ObjectId {
        let counter = ObjectIdGenerator.nextCounter()
        var raw = [UInt8](repeating: 0, count: 12)
        putBigEndian(seconds, into: &raw, at: 0, count: 4)
        let random = ObjectIdGenerator.processRandom
        for i in 0..<5 { raw[4 + i] = random[i] }
        putBigEndian(counter, into: &raw, at: 9, count: 3)
        return try! ObjectId(bytes: raw)
    }

    /// The 5 random bytes this process puts in every generated id (bytes 4–8).
    package static var processRandomBytes: [UInt8] { ObjectIdGenerator.processRandom }
}

/// Process-wide state for id generation.
enum ObjectIdGenerator {
    /// Chosen once per process; random rather than derived from host or pid, as current drivers do.
    static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: .min ... .max) }

    /// Starts at a random value; only its low 24 bits are used.
    static let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    /// The next 24-bit counter value (wrapping).
    static func nextCounter() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).oldValue & 0xFF_FFFF
    }
}
