import Foundation
import Outpost

/// `outpost-bench events [rounds]`: the event library's cost. Each case runs the same work on the same
/// event-enabled local Realm with and without an active scope, alternating, and reports the median ratio. The
/// scoped side includes beginning the scope and its commit (serializing the events and storing them in the
/// on-device event store), waited for.
enum EventsBenchmark {
    static let writeCount = 1_000
    static let readCount = 10_000

    static func run(rounds: Int, directory: URL, only: String?) throws {
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("events.realm"),
                                         objectTypes: [BenchPerson.self])
        config.eventConfiguration = EventConfiguration()
        let realm = try Realm(configuration: config)
        let events = realm.events!
        let data = BenchData(count: readCount)
        try realm.write {
            for i in 0..<readCount {
                realm.add(data.person(i))
            }
        }
        // The objects the write case modifies, fetched once (holding them records nothing).
        let targets = Array(realm.objects(BenchPerson.self).prefix(writeCount))

        func update() throws {
            try realm.write {
                for p in targets { p.age += 1 }
            }
        }
        func read() -> Int {
            var sum = 0
            for p in realm.objects(BenchPerson.self).filter("age >= 0") { sum &+= p.age }
            return sum
        }
        func scoped(_ body: () throws -> Void) rethrows {
            let scope = events.beginScope(activity: "bench")
            try body()
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: Error?
            scope.commit { error in
                failure = error
                done.signal()
            }
            done.wait()
            if let failure { fatalError("scope commit failed: \(failure)") }
        }

        var writeO: [Double] = [], writeB: [Double] = []
        var readO: [Double] = [], readB: [Double] = []
        var checksum = 0
        // One warm-up round of each, then the measured rounds (baseline and scoped alternate).
        for round in -1..<rounds {
            var w: (Double, Double) = (0, 0), r: (Double, Double) = (0, 0)
            if only != "read" {
                if only == nil { w.1 = try seconds { try update() } }
                w.0 = try seconds { try scoped { try update() } }
            }
            if only != "write" {
                if only == nil { r.1 = seconds { checksum &+= read() } }
                r.0 = seconds { scoped { checksum &+= read() } }
            }
            guard round >= 0 else { continue }
            writeO.append(w.0); writeB.append(w.1)
            readO.append(r.0); readB.append(r.1)
        }
        if only != nil {
            print(String(format: "write %.2f ms, read %.2f ms (scoped only)", median(writeO) * 1000,
                         median(readO) * 1000))
            return
        }
        print("Event library: median of \(rounds) rounds, release build (checksum \(checksum % 10))")
        report("write \(writeCount) objects in a scope + commit", outpost: writeO, baseline: writeB, goal: 2,
               baselineName: "no scope")
        report("query + read \(readCount) objects in a scope + commit", outpost: readO, baseline: readB, goal: 2,
               baselineName: "no scope")
    }
}
