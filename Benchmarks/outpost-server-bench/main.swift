import Foundation
import OutpostServerTesting

// Usage: outpost-server-bench [ingest|import|fanout|fanout-live|idle|history|upload-read|find|audit|functions|all] [documents] [rounds, ingest only]
// (`functions` makes `documents` calls, 2,000 unless given; it needs Node.js.)
// (`find` runs at 1,000, 100,000 and 1,000,000 documents unless `documents` names one size.)
// (`audit` generates 10,000,000 events unless `documents` names another count; not part of `all`.)
// (`fanout` readers decode after the run; `fanout-live` readers decode each download as it arrives.)
// PostgreSQL cases need PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE (as in the tests).
let arguments = CommandLine.arguments.dropFirst()
let which = arguments.first ?? "all"
let documents = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
let rounds = max(1, arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1)

func report(_ name: String, _ outpost: Double, _ baseline: Double, goal: Double) {
    let ratio = outpost / baseline
    print(String(format: "%@: outpost %.2f s, baseline %.2f s, ratio %.2f× (goal ≤ %.0f×) %@",
                 name, outpost, baseline, ratio, goal, ratio <= goal ? "met" : "NOT MET"))
}

if which == "ingest" || which == "all" {
    // Each round runs Outpost and then its baseline on fresh databases; with several rounds the median of the
    // rounds' ratios is reported too (single runs on this 2-core machine move by ±50 %).
    for driver in ["sqlite", "postgres"] {
        let name = driver == "sqlite" ? "SQLite" : "PostgreSQL"
        guard driver == "sqlite" || PostgresTestEnvironment.isConfigured else {
            print("ingest on PostgreSQL: skipped (no PG* environment)")
            continue
        }
        var ratios: [Double] = []
        for _ in 0..<rounds {
            let run = try await IngestBenchmark.run(driver: driver, documents: documents, transactions: 1_000)
            report("ingest \(documents) docs / 1000 transactions, \(name)", run.outpost, run.baseline, goal: 3)
            ratios.append(run.outpost / run.baseline)
        }
        if rounds > 1 {
            let median = Stats.percentile(ratios, 50)
            print(String(format: "ingest, %@: median ratio of %d rounds %.2f× (goal ≤ 3×) %@", name, rounds, median,
                         median <= 3 ? "met" : "NOT MET"))
        }
    }
}
if which == "import" || which == "all" {
    for driver in ["sqlite", "postgres"] {
        let name = driver == "sqlite" ? "SQLite" : "PostgreSQL"
        guard driver == "sqlite" || PostgresTestEnvironment.isConfigured else {
            print("import on PostgreSQL: skipped (no PG* environment)")
            continue
        }
        for _ in 0..<rounds {
            let run = try await ImportBenchmark.run(driver: driver, documents: documents)
            report("import-data \(documents) docs / 1000 per batch, \(name)", run.outpost, run.baseline, goal: 3)
        }
    }
}
if which == "fanout" || which == "fanout-live" || which == "all" {
    let live = which == "fanout-live"
    let (decoded, arrived) = try await FanOutBenchmark.run(readers: 100, changes: 1_000, decodeLive: live)
    let cases = live ? [("frame arrived", arrived), ("decoded by the test client", decoded)]
        : [("frame arrived, readers decoding after the run", arrived)]
    for (what, latencies) in cases {
        print(String(format: "fan-out 100 readers × 1000 changes, %@: %d receipts, p50 %.2f ms (goal ≤ 5), p99 %.2f ms (goal ≤ 25), max %.2f ms",
                     what, latencies.count, Stats.percentile(latencies, 50) * 1000, Stats.percentile(latencies, 99) * 1000,
                     (latencies.max() ?? 0) * 1000))
    }
}
if which == "history" || which == "all" {
    for _ in 0..<rounds {
        let run = try await HistoryReadBenchmark.run(changesets: 20_000)
        print(String(format: "read 20000 stored changesets: direct %.3f s, JSONDecoder (baseline) %.3f s, %.2f× faster",
                     run.direct, run.codable, run.codable / run.direct))
    }
}
if which == "upload-read" || which == "all" {
    for _ in 0..<rounds {
        let run = try await UploadReadBenchmark.run(objects: documents)
        print(String(format: "read %d uploaded creates (1000 per message): direct %.3f s, general decoder (baseline) %.3f s, %.2f× faster",
                     documents, run.direct, run.general, run.general / run.direct))
    }
}
if which == "functions" {  // not in `all`: it needs Node.js
    let calls = arguments.dropFirst().first.flatMap { Int($0) } ?? 2_000
    for _ in 0..<rounds {
        let (function, findOne) = try await FunctionsBenchmark.run(calls: calls)
        print(String(format: "function call (trivial), %d calls: p50 %.2f ms, p99 %.2f ms, %.0f calls/s with 16 in flight",
                     calls, function.p50 * 1000, function.p99 * 1000, function.perSecond))
        print(String(format: "Data API findOne by _id (baseline): p50 %.2f ms, p99 %.2f ms, %.0f requests/s with 16 in flight",
                     findOne.p50 * 1000, findOne.p99 * 1000, findOne.perSecond))
        print(String(format: "functions: p50 ratio %.2f× (goal ≤ 3×) %@, throughput ratio %.2f× of findOne's (goal ≥ 0.33×) %@",
                     function.p50 / findOne.p50, function.p50 / findOne.p50 <= 3 ? "met" : "NOT MET",
                     function.perSecond / findOne.perSecond, function.perSecond / findOne.perSecond >= 0.33 ? "met" : "NOT MET"))
    }
}
if which == "find" {  // not in `all`: a million inserts take minutes
    let sizes = arguments.dropFirst().first.flatMap { Int($0) }.map { [$0] } ?? [1_000, 100_000, 1_000_000]
    for size in sizes {
        let run = try await FindBenchmark.run(documents: size)
        print(String(format: "find among %d documents (100 the user's), SQLite: insert %.1f s", size, run.insert))
        for (what, t) in [("findOne by _id", run.byId), ("findOne by indexed field", run.byField)] {
            print(String(format: "  %@: Data API over HTTP %.3f ms, storage query %.3f ms, direct SQL (baseline) %.3f ms; storage/SQL %.2f× (goal ≤ 2×), HTTP/SQL %.1f×",
                         what, t.http * 1000, t.storage * 1000, t.direct * 1000, t.storage / t.direct, t.http / t.direct))
        }
        for (what, t) in [("findOne by _id", run.warmById), ("findOne by indexed field", run.warmByField)] {
            print(String(format: "  %@, each way back to back: storage query %.3f ms, direct SQL (baseline) %.3f ms; storage/SQL %.2f× (goal ≤ 2×)",
                         what, t.storage * 1000, t.direct * 1000, t.storage / t.direct))
        }
    }
}
if which == "idle" || which == "all" {
    let idle = try await IdleSessionsBenchmark.run(sessions: 1_000)
    print(String(format: "1000 idle sessions: server RSS %d KiB → %d KiB, %.1f KiB per session (goal ≤ 64)",
                 idle.beforeKiB, idle.afterKiB, idle.perSessionKiB))
}
if which == "audit" {  // not in `all`: ten million events take long to generate
    let events = arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000_000
    for driver in ["sqlite", "postgres"] {
        let name = driver == "sqlite" ? "SQLite" : "PostgreSQL"
        guard driver == "sqlite" || PostgresTestEnvironment.isConfigured else {
            print("audit on PostgreSQL: skipped (no PG* environment)")
            continue
        }
        let run = try await AuditBenchmark.run(driver: driver, events: events)
        print(String(format: "audit search among %d events, %@ (generated in %.1f s); page of %d and total, %d searches each:",
                     events, name, run.load, AuditBenchmark.pageSize, AuditBenchmark.searches))
        for result in run.cases {
            let (p50, p99) = (Stats.percentile(result.outpost, 50), Stats.percentile(result.outpost, 99))
            let (b50, b99) = (Stats.percentile(result.baseline, 50), Stats.percentile(result.baseline, 99))
            print(String(format: "  %@: AuditStorage p50 %.2f ms p99 %.2f ms, direct SQL (baseline) p50 %.2f ms p99 %.2f ms; ratio %.2f× (p50); goal p99 < 1 s %@",
                         result.name, p50 * 1000, p99 * 1000, b50 * 1000, b99 * 1000, p50 / b50, p99 < 1 ? "met" : "NOT MET"))
        }
    }
}
