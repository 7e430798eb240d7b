import Foundation
import OutpostCore
import OutpostServer

extension StorageConformance {
    /// Checks of ``AppLogStorage``: filters by kind and time, the newest matches first, deletion by date.
    public static var appLogStorageChecks: [Check] {
        [
            .appLogStorage("logs: filtered by kind and time, newest limit records, oldest first") { storage in
                let app = appId()
                var records: [LogRecord] = []
                for i in 0..<10 {
                    let record = LogRecord(
                        appId: app, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 60 + 0.25),
                        kind: i.isMultiple(of: 2) ? "sync" : "auth", level: i == 9 ? "error" : "info",
                        message: "event \(i) \(hostileName)",
                        details: i == 4 ? .document(["rejected": .array([.int(1), .objectId(ObjectId.generate())])]) : nil)
                    records.append(record)
                }
                for record in records.reversed() { try await storage.appendLog(record) }
                try await storage.appendLog(LogRecord(appId: appId(), time: records[0].time, kind: "sync", level: "info", message: "other app"))
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 100), records, "all logs")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "sync", since: nil, until: nil, limit: 100),
                    records.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element), "sync logs")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: records[3].time, until: records[6].time, limit: 100),
                    Array(records[3...6]), "time range, both ends inclusive")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "auth", since: records[2].time, until: nil, limit: 2),
                    [records[7], records[9]], "kind, since and limit: the newest matches, oldest first")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: records[1].time, limit: 100),
                    Array(records[0...1]), "until")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: "admin", since: nil, until: nil, limit: 100), [], "no such kind")
                try Expect.equal(try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 0), [], "limit 0")
            },
            .appLogStorage("logs: records from before a date are deleted, per app") { storage in
                let app = appId()
                let records = (0..<6).map { i in
                    LogRecord(appId: app, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 60 + 0.25),
                              kind: "sync", level: "info", message: "event \(i)")
                }
                for record in records { try await storage.appendLog(record) }
                let other = LogRecord(appId: appId(), time: records[0].time, kind: "sync", level: "info", message: "other app")
                try await storage.appendLog(other)
                try Expect.equal(try await storage.deleteLogs(appId: app, before: records[3].time), 3, "deleted count")
                try Expect.equal(
                    try await storage.logs(appId: app, kind: nil, since: nil, until: nil, limit: 100), Array(records[3...]),
                    "the record at the date and later ones are kept")
                try Expect.equal(
                    try await storage.logs(appId: other.appId, kind: nil, since: nil, until: nil, limit: 100), [other],
                    "the other app's log")
                try Expect.equal(try await storage.deleteLogs(appId: app, before: records[3].time), 0, "nothing left to delete")
            },
        ]
    }
}
