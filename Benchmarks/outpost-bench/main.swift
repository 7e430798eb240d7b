import Foundation
import Outpost

// Usage: swift run -c release outpost-bench [objects=100000] [rounds=5]
//        swift run -c release outpost-bench events [rounds=9]
// Each case runs beside its baseline in this process (raw SQLite C API; for `events`, the same work without an
// event scope); the medians and their ratio are printed. Figures go to BENCHMARKS.md.

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
/// `OUTPOST_BENCH_ONLY=insert|query|update` runs only that case (for profiling).
let only = ProcessInfo.processInfo.environment["OUTPOST_BENCH_ONLY"]
let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("outpost-bench-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func report(_ name: String, outpost: [Double], baseline: [Double], goal: Double, baselineName: String = "raw SQLite") {
    let o = median(outpost), b = median(baseline)
    let ratio = o / b
    print(String(format: "%-58@ outpost %8.1f ms | %@ %8.1f ms | ratio %.2f× (goal ≤ %.1f×) %@",
                 name as NSString, o * 1000, baselineName as NSString, b * 1000, ratio, goal,
                 ratio <= goal ? "ok" : "OVER"))
}

/// `OUTPOST_BENCH_ONLY=write|read` runs only the scoped side of that events case.
if arguments.count > 1 && arguments[1] == "events" {
    try EventsBenchmark.run(rounds: arguments.count > 2 ? Int(arguments[2]) ?? 9 : 9, directory: directory, only: only)
    try? FileManager.default.removeItem(at: directory)
    exit(0)
}

let data = BenchData(count: count)
var insertO: [Double] = [], insertB: [Double] = []
var queryO: [Double] = [], queryB: [Double] = []
var updateO: [Double] = [], updateB: [Double] = []

for round in 0..<rounds {
    // Baseline
    let rawPath = directory.appendingPathComponent("raw-\(round).sqlite").path
    let raw = RawSQLite(path: rawPath)
    var rawResult = (count: 0, checksum: 0)
    if only == nil {  // profiling one case: no baseline
        insertB.append(seconds { raw.insert(data) })
        queryB.append(seconds { rawResult = raw.query() })
        updateB.append(seconds { raw.updateAll(data) })
    }

    // Outpost
    let config = Realm.Configuration(fileURL: directory.appendingPathComponent("outpost-\(round).realm"),
                                     objectTypes: [BenchPerson.self])
    do {
        let realm = try Realm(configuration: config)
        insertO.append(try seconds {
            try realm.write {
                for i in 0..<count {
                    realm.add(data.person(i))
                }
            }
        })
        if only == "insert" { continue }
        var matched = 0, checksum = 0
        queryO.append(seconds {
            let results = realm.objects(BenchPerson.self).filter("age > 50 AND name BEGINSWITH 'A'")
            matched = results.count
            for p in results {
                checksum &+= p.name.utf8.count &+ p.email.utf8.count &+ p.age
            }
        })
        precondition(only != nil || matched == rawResult.count && checksum == rawResult.checksum,
                     "query mismatch: \(matched)/\(rawResult.count) \(checksum)/\(rawResult.checksum)")
        updateO.append(try seconds {
            try realm.write {
                for p in realm.objects(BenchPerson.self) { p.age += 1 }
            }
        })
    }
}

if only != nil {
    print("insert \(median(insertO) * 1000) ms, query \(queryO.isEmpty ? 0 : median(queryO) * 1000) ms, update \(updateO.isEmpty ? 0 : median(updateO) * 1000) ms")
    exit(0)
}
print("Outpost benchmarks: \(count) objects, median of \(rounds) rounds, release build")
report("insert \(count) objects in one write", outpost: insertO, baseline: insertB, goal: 1.5)
report("age > 50 AND name BEGINSWITH 'A': count + read 3 props", outpost: queryO, baseline: queryB, goal: 2)
report("update one property on \(count) objects in one write", outpost: updateO, baseline: updateB, goal: 2)

// Managed property reads.
do {
    let config = Realm.Configuration(fileURL: directory.appendingPathComponent("outpost-0.realm"), objectTypes: [BenchPerson.self])
    let realm = try Realm(configuration: config)
    let object = realm.objects(BenchPerson.self).first!
    var sum = 0
    let reads = 1_000_000
    let t = seconds { for _ in 0..<reads { sum &+= object.age } }
    print(String(format: "managed property read (Int): %.1f ns per read (checksum %d)", t / Double(reads) * 1e9, sum % 10))
}

// Iterating 1M objects: peak memory stays flat.
func peakRSSMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return kb / 1024
    }
    return 0
}
do {
    let big = 1_000_000
    let config = Realm.Configuration(fileURL: directory.appendingPathComponent("big.realm"), objectTypes: [BenchPerson.self])
    let realm = try Realm(configuration: config)
    try realm.write {
        for i in 0..<big {
            let p = BenchPerson()
            p.name = "n\(i)"
            p.email = "e"
            p.age = i % 100
            realm.add(p)
        }
    }
    let before = peakRSSMiB()
    var total = 0
    var checkpoints: [Double] = []
    let t = seconds {
        for (i, p) in realm.objects(BenchPerson.self).enumerated() {
            total &+= p.age
            if i % 250_000 == 0 { checkpoints.append(peakRSSMiB()) }
        }
    }
    print(String(format: "iterate 1M objects: %.0f ms; peak RSS before %.0f MiB, during %@ MiB, after %.0f MiB",
                 t * 1000, before, checkpoints.map { String(format: "%.0f", $0) }.joined(separator: "/") as NSString, peakRSSMiB()))
}
