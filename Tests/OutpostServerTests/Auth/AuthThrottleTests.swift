import Foundation
import Testing

@testable import OutpostServer

/// ``AuthThrottle`` as transcripts: one call per line, the time moved by hand.
@Suite struct AuthThrottleTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    @Test func aBurstThenOneAttemptPerRefillInterval() {
        var throttle = AuthThrottle(burst: 3, window: 300, capacity: 100)
        for _ in 0..<3 {
            #expect(throttle.retryAfter("a", now: t0) == nil)
            throttle.spend("a", now: t0)
        }
        #expect(throttle.retryAfter("a", now: t0) == 100)
        #expect(throttle.retryAfter("a", now: t0 + 99.5) == 1)
        #expect(throttle.retryAfter("a", now: t0 + 100) == nil)
        throttle.spend("a", now: t0 + 100)
        #expect(throttle.retryAfter("a", now: t0 + 100) == 100)
        // Other keys have their own bucket.
        #expect(throttle.retryAfter("b", now: t0) == nil)
        // A clock that goes back adds nothing.
        #expect(throttle.retryAfter("a", now: t0) == 100)
        #expect(throttle.retryAfter("a", now: t0 + 400) == nil)
    }

    @Test func refundAndReset() {
        var throttle = AuthThrottle(burst: 2, window: 60, capacity: 100)
        throttle.spend("a", now: t0)
        throttle.spend("a", now: t0)
        #expect(throttle.retryAfter("a", now: t0) == 30)
        throttle.refund("a", now: t0)
        #expect(throttle.retryAfter("a", now: t0) == nil)
        throttle.refund("a", now: t0)
        throttle.refund("a", now: t0)
        throttle.spend("a", now: t0)
        throttle.spend("a", now: t0)
        #expect(throttle.retryAfter("a", now: t0) == 30, "refunds never fill beyond the burst")
        throttle.reset("a")
        #expect(throttle.retryAfter("a", now: t0) == nil)
        #expect(throttle.trackedKeys == 0)
    }

    @Test func aRefusalIsReportedOncePerSpend() {
        var throttle = AuthThrottle(burst: 1, window: 60, capacity: 100)
        var reports: [Bool] = []
        reports.append(throttle.reportRefusal("a", now: t0))  // untracked: nothing to report
        throttle.spend("a", now: t0)
        reports.append(throttle.reportRefusal("a", now: t0))
        reports.append(throttle.reportRefusal("a", now: t0 + 1))
        throttle.spend("a", now: t0 + 60)
        reports.append(throttle.reportRefusal("a", now: t0 + 60))
        #expect(reports == [false, true, false, true])
    }

    @Test func trackedKeysStayWithinTheCapacity() {
        var throttle = AuthThrottle(burst: 1, window: 3600, capacity: 10)
        for i in 0..<1_000 {
            throttle.spend("key\(i)", now: t0)
            #expect(throttle.trackedKeys <= 10)
        }
        #expect(throttle.retryAfter("key999", now: t0) != nil, "the newest keys are tracked")
        #expect(throttle.retryAfter("key0", now: t0) == nil, "the oldest were dropped")
    }

    @Test func aKeyUsedAgainSurvivesARotation() {
        var throttle = AuthThrottle(burst: 2, window: 3600, capacity: 4)
        throttle.spend("victim", now: t0)
        throttle.spend("x1", now: t0)
        throttle.spend("x2", now: t0)  // the current generation (2 keys) was full: victim and x1 are the older one
        throttle.spend("victim", now: t0)  // victim moves back to the current generation
        throttle.spend("x3", now: t0)
        throttle.spend("x4", now: t0)
        #expect(throttle.retryAfter("victim", now: t0) != nil)
        #expect(throttle.retryAfter("x1", now: t0) == nil)
        #expect(throttle.trackedKeys == 4)
    }

    @Test func combinedLimitsSpendAllOrNothing() {
        let throttling = AuthThrottling(
            AppDefinition.Throttling(failedLoginsPerAccount: 2, failedLoginsPerAddress: 3, newUsersPerAddress: 0))
        let account: AuthThrottling.Key = .init(limit: .account, name: "a")
        let address: AuthThrottling.Key = .init(limit: .address, name: "1.2.3.4")
        #expect(throttling.spend([account, address], now: t0) == nil)
        #expect(throttling.spend([account, address], now: t0) == nil)
        let refusal = throttling.spend([account, address], now: t0)
        #expect(refusal == .init(limit: .account, retryAfterSeconds: 150, isFirst: true))
        #expect(throttling.spend([account, address], now: t0)?.isFirst == false)
        // The refused attempts spent nothing of the address: one more attempt for another account passes.
        #expect(throttling.spend([.init(limit: .account, name: "b"), address], now: t0) == nil)
        #expect(throttling.spend([.init(limit: .account, name: "c"), address], now: t0)?.limit == .address)
        // A limit that is off never refuses.
        for _ in 0..<10 { #expect(throttling.spend([.init(limit: .newUsers, name: "1.2.3.4")], now: t0) == nil) }
    }
}
