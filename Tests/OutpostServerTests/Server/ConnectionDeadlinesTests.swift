import NIOCore
@testable import OutpostServer
import Testing

/// ``ConnectionDeadlines`` as transcripts: one event per line, then the deadline or what an expiry does.
@Suite struct ConnectionDeadlinesTests {
    static func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000 + seconds) * 1_000_000_000) }

    func machine() -> ConnectionDeadlines {
        ConnectionDeadlines(headTimeout: .seconds(30), bodyTimeout: .seconds(60), idleTimeout: .seconds(75),
                            connectedAt: Self.at(0))
    }

    @Test func theHeadIsDueFromTheConnectionAndBytesDoNotExtendIt() {
        var deadlines = machine()
        #expect(deadlines.deadline == Self.at(30))
        deadlines.bytesRead(at: Self.at(10))
        deadlines.bytesRead(at: Self.at(29))
        #expect(deadlines.deadline == Self.at(30))
        #expect(deadlines.expired(at: Self.at(30)) == .answerTimeoutAndClose)
    }

    @Test func theBodyTimeoutIsBetweenReads() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        #expect(deadlines.deadline == Self.at(61))
        deadlines.bytesRead(at: Self.at(50))
        #expect(deadlines.expired(at: Self.at(61)) == .wait)
        #expect(deadlines.deadline == Self.at(110))
        #expect(deadlines.expired(at: Self.at(110)) == .answerTimeoutAndClose)
    }

    @Test func aStartedResponseIsNotFollowedBy408() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        deadlines.responseStarted(at: Self.at(2))
        #expect(deadlines.expired(at: Self.at(61)) == .close)
    }

    @Test func noDeadlineWhileTheServerResponds() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        deadlines.requestEnded(at: Self.at(1))
        #expect(deadlines.deadline == nil)
        #expect(deadlines.expired(at: Self.at(1_000)) == .wait)
        deadlines.responseStarted(at: Self.at(500))
        deadlines.responseEnded(at: Self.at(500))
        #expect(deadlines.deadline == Self.at(575))
        #expect(deadlines.expired(at: Self.at(575)) == .close)
    }

    @Test func theNextRequestsFirstByteStartsItsHeadDeadline() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        deadlines.requestEnded(at: Self.at(1))
        deadlines.responseEnded(at: Self.at(2))
        deadlines.bytesRead(at: Self.at(40))
        #expect(deadlines.deadline == Self.at(70))
        // Bytes of the next request that arrive while the server still responds start its head deadline too.
        deadlines.headReceived(at: Self.at(41))
        deadlines.requestEnded(at: Self.at(41))
        deadlines.bytesRead(at: Self.at(42))
        deadlines.responseEnded(at: Self.at(45))
        #expect(deadlines.deadline == Self.at(72))
    }

    @Test func aResponseBeforeTheEndOfTheBodyKeepsTheBodyDeadline() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        deadlines.responseStarted(at: Self.at(2))
        deadlines.responseEnded(at: Self.at(2))
        #expect(deadlines.deadline == Self.at(61))
        deadlines.requestEnded(at: Self.at(3))
        #expect(deadlines.deadline == Self.at(78))
    }

    @Test func anUpgradedConnectionHasNoDeadlineAndClosingLingers() {
        var deadlines = machine()
        deadlines.headReceived(at: Self.at(1))
        deadlines.upgraded()
        deadlines.requestEnded(at: Self.at(1))
        #expect(deadlines.deadline == nil)
        deadlines.closing(at: Self.at(100))
        #expect(deadlines.deadline == Self.at(100) + ConnectionDeadlines.lingerTimeout)
        #expect(deadlines.expired(at: Self.at(102)) == .close)
    }
}
