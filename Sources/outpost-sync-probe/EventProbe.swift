import Foundation
import Outpost

// Events mode of the probe (issue #5, Reliability):
//
//     outpost-sync-probe --mode events --server … --app … --root <dir> --count 80 --shard-size 4096 --run r0
//
// Opens a local Realm audited with the probe's user (prefix `probe`) and runs `--count` scopes, each writing one
// object: most are committed, every fifth is cancelled, and some fail (they write an object whose custom event
// representation is invalid JSON). Activities are `<run> commit <n>`, `<run> cancel <n>`, `<run> fail <n>`.
// Standard output, flushed line by line:
//
//     committed-scope <activity>      after the scope's commit reported success
//     cancelled <activity> / failed <activity>
//     error <message>                 the event error handler was called
//     uploaded                        every shard of the store has been uploaded and deleted
//
// Then it exits 0. With `--error-handler off` a fatal upload error aborts the process, as Realm does.

/// An object whose events cannot be serialized: committing a scope that wrote one fails.
final class ProbeUnserializable: Object, CustomEventRepresentable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var number: Int

    func customEventRepresentation() -> String { "not json" }
}

enum EventProbe {
    static func run(_ arguments: ProbeArguments, app: App, user: User, root: URL) async throws -> Never {
        var events = EventConfiguration(metadata: arguments.metadata, syncUser: user, partitionPrefix: "probe")
        events.maxShardSize = arguments.shardSize
        if arguments.errorHandler {
            events.errorHandler = { error in SyncProbe.say("error \(error.localizedDescription)") }
        }
        var configuration = Realm.Configuration(fileURL: root.appendingPathComponent("audited.realm"),
                                                objectTypes: [ProbeItem.self, ProbeUnserializable.self])
        configuration.eventConfiguration = events
        let realm = try await Realm(configuration: configuration)
        for n in 0..<arguments.count {
            let kind = n % 5 == 4 ? "cancel" : n % 7 == 6 ? "fail" : "commit"
            let activity = "\(arguments.run) \(kind) \(n)"
            let scope = realm.events!.beginScope(activity: activity)
            try realm.write {
                if kind == "fail" {
                    let bad = ProbeUnserializable()
                    bad.number = n
                    realm.add(bad)
                } else {
                    let item = ProbeItem()
                    item.number = n
                    item.payload = String(repeating: "e", count: 200)
                    realm.add(item)
                }
            }
            switch kind {
            case "cancel":
                scope.cancel()
                SyncProbe.say("cancelled \(activity)")
            case "fail":
                do {
                    try await scope.commit()
                    SyncProbe.say("unexpected-success \(activity)")
                } catch {
                    SyncProbe.say("failed \(activity)")
                }
            default:
                try await scope.commit()
                SyncProbe.say("committed-scope \(activity)")
            }
        }
        let directory = root.appendingPathComponent("realm-audit").appendingPathComponent(app.appId)
            .appendingPathComponent(user.id).appendingPathComponent("probe")
        let deadline = Date().addingTimeInterval(arguments.uploadTimeout)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if !names.contains(where: { $0.hasSuffix(".sqlite") }) {
                SyncProbe.say("uploaded")
                exit(0)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        FileHandle.standardError.write(Data("outpost-sync-probe: the events were not uploaded in time\n".utf8))
        exit(1)
    }
}
