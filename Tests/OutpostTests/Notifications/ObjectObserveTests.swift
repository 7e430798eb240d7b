import Foundation
import Outpost
import OutpostTesting
import Testing

@Suite struct ObjectObserveTests {
    /// What an object observer saw: property names with their old and new values, or "deleted".
    final class Recorder {
        var changes: [[String: (old: String?, new: String?)]] = []
        var deleted = 0
        var token: NotificationToken?

        init(_ object: NPerson, keyPaths: [String]? = nil) {
            token = object.observe(keyPaths: keyPaths) { [unowned self] (change: ObjectChange<NPerson>) in
                switch change {
                case .change(let o, let properties):
                    precondition(o.id == object.id)
                    var entry: [String: (old: String?, new: String?)] = [:]
                    for p in properties { entry[p.name] = (p.oldValue.map { "\($0)" }, p.newValue.map { "\($0)" }) }
                    changes.append(entry)
                case .deleted: deleted += 1
                case .error: break
                }
            }
        }

        func settle() { spinRunLoop(timeout: 0.1) { false } }
    }

    @Test func localChangeHasNewValuesOnly() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let recorder = Recorder(ann)
        try f.realm.write {
            ann.name = "Ann"
            ann.age = 11
            ann.scores.append(3)
        }
        #expect(spinRunLoop { !recorder.changes.isEmpty })
        let change = try #require(recorder.changes.first)
        #expect(Set(change.keys) == ["name", "age", "scores"])
        #expect(change["name"]! == (nil, "Ann"))
        #expect(change["age"]! == (nil, "11"))
        #expect(change["scores"]! == (nil, nil))  // collections carry no values, as in Realm
    }

    @Test func changeFromAnotherThreadHasOldValues() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let recorder = Recorder(ann)
        let configuration = f.configuration
        let done = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.object(ofType: NPerson.self, forPrimaryKey: 1)!.name = "Ann" }
            done.signal()
        }.start()
        done.wait()
        #expect(spinRunLoop { !recorder.changes.isEmpty })
        #expect(recorder.changes.count == 1)
        #expect(recorder.changes.first?["name"].map { $0 == ("P1", "Ann") } == true)
        #expect(ann.name == "Ann")
    }

    @Test func keyPathsAndLinkedObjects() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let byName = Recorder(ann, keyPaths: ["name", "pet.name"])
        let all = Recorder(ann)
        try f.realm.write { ann.age = 12 }
        byName.settle()
        #expect(byName.changes.isEmpty)
        #expect(all.changes.count == 1)
        try f.realm.write { ann.pet!.age = 4 }
        byName.settle()
        #expect(byName.changes.isEmpty)
        #expect(all.changes.count == 2)
        #expect(all.changes.last.map { Array($0.keys) } == ["pet"])
        try f.realm.write { ann.pet!.name = "Rex" }
        byName.settle()
        #expect(byName.changes.count == 1)
        #expect(byName.changes.first.map { Array($0.keys) } == ["pet"])
    }

    @Test func deletionIsReportedOnce() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let recorder = Recorder(ann)
        try f.realm.write { f.realm.delete(ann) }
        try f.realm.write { f.realm.add(NPerson(10, "Later", age: 1)) }
        recorder.settle()
        #expect(recorder.deleted == 1)
        #expect(recorder.changes.isEmpty)
    }

    @Test func noInitialNotificationAndNothingForOtherObjects() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        try f.addPeople()
        let ann = f.realm.object(ofType: NPerson.self, forPrimaryKey: 1)!
        let recorder = Recorder(ann)
        try f.realm.write { f.realm.object(ofType: NPerson.self, forPrimaryKey: 2)!.name = "Bob" }
        recorder.settle()
        #expect(recorder.changes.isEmpty && recorder.deleted == 0)
    }
}

@Suite struct RealmObserveTests {
    @Test func localCommitNotifiesSynchronously() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        var notifications: [Realm.Notification] = []
        let token = f.realm.observe { notification, realm in
            #expect(realm == f.realm)
            notifications.append(notification)
        }
        defer { token.invalidate() }
        try f.realm.write { f.realm.add(NPet("Rex")) }
        #expect(notifications == [.didChange])
        token.invalidate()
        try f.realm.write { f.realm.add(NPet("Max")) }
        #expect(notifications == [.didChange])
    }

    @Test func commitOnAnotherThreadNotifiesAfterRefresh() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        var notifications: [Realm.Notification] = []
        var countSeen = -1
        let token = f.realm.observe { notification, realm in
            notifications.append(notification)
            countSeen = realm.objects(NPet.self).count
        }
        defer { token.invalidate() }
        let configuration = f.configuration
        let done = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.add(NPet("Rex")) }
            done.signal()
        }.start()
        done.wait()
        #expect(spinRunLoop { !notifications.isEmpty })
        #expect(notifications == [.didChange])
        #expect(countSeen == 1)
    }

    @Test func withoutAutorefreshARefreshIsRequired() throws {
        let f = try NotificationFixture()
        defer { f.remove() }
        f.realm.autorefresh = false
        var notifications: [Realm.Notification] = []
        let token = f.realm.observe { notification, _ in notifications.append(notification) }
        defer { token.invalidate() }
        let configuration = f.configuration
        let done = DispatchSemaphore(value: 0)
        Thread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.add(NPet("Rex")) }
            done.signal()
        }.start()
        done.wait()
        #expect(spinRunLoop { !notifications.isEmpty })
        #expect(notifications.first == .refreshRequired)
        #expect(f.realm.objects(NPet.self).count == 0)
        f.realm.refresh()
        #expect(notifications.last == .didChange)
        #expect(f.realm.objects(NPet.self).count == 1)
    }
}
