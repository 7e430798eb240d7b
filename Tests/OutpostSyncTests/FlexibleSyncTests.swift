import Foundation
@testable import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// The seed page "Write data to a synced realm", run as written against a real server (in-process HTTP and
/// WebSocket on 127.0.0.1).
@Suite(.timeLimit(.minutes(3))) struct FlexibleSyncTests {
    @Test func seedStoryLegalWriteSyncsIllegalWritesAreCompensated() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: Credentials.anonymous)
                var flexSyncConfig = user.flexibleSyncConfiguration()
                flexSyncConfig.objectTypes = [Item.self]
                let reports = SyncReports()
                let path = flexSyncConfig.fileURL!
                let checkConfig = flexSyncConfig
                reports.install(on: app) { error in
                    // The revert must already be applied when the error is reported.
                    guard let info = error.compensatingWriteInfo?.first, let pk = info.primaryKey.objectIdValue,
                        let realm = try? Realm(configuration: checkConfig)
                    else { return false }
                    realm.refresh()
                    return realm.object(ofType: Item.self, forPrimaryKey: pk) == nil
                }
                let realm = try await Realm(configuration: flexSyncConfig)
                let subscriptions = realm.subscriptions
                try await subscriptions.update {
                    subscriptions.append(QuerySubscription<Item>(name: "simple-items") { $0.complexity <= 4 })
                }
                #expect(subscriptions.state == .complete)
                #expect(subscriptions.first(named: "simple-items")?.queryString == "complexity <= 4")

                // A second device of the same user.
                var secondConfig = flexSyncConfig
                secondConfig.fileURL = path.deletingLastPathComponent().appendingPathComponent("second-device.realm")
                let second = try await Realm(configuration: secondConfig)
                try await second.subscriptions.update {
                    second.subscriptions.append(QuerySubscription<Item>(name: "simple-items") { $0.complexity <= 4 })
                }

                // Successful write.
                let learnRealm = Item()
                learnRealm.ownerId = user.id
                learnRealm.itemName = "Learn Realm CRUD stuff"
                learnRealm.complexity = 3
                try realm.write { realm.add(learnRealm) }
                try await realm.syncSession!.wait(for: .upload)
                try await second.syncSession!.wait(for: .download)
                second.refresh()
                #expect(second.object(ofType: Item.self, forPrimaryKey: learnRealm._id)?.itemName == "Learn Realm CRUD stuff")

                // Outside the subscription: complexity 7.
                let fixTheBug = Item()
                fixTheBug.ownerId = user.id
                fixTheBug.itemName = "Fix the bug with the failing method"
                fixTheBug.complexity = 7
                let fixId = fixTheBug._id  // the object is deleted by the revert
                try realm.write { realm.add(fixTheBug) }
                let first = try await reports.waitForErrors(1)
                #expect(first[0].code == .writeRejected)
                #expect(first[0].localizedDescription
                    == "Client attempted a write that is outside of permissions or query filters; it has been reverted")
                let info = try #require(first[0].compensatingWriteInfo?.first)
                #expect(info.objectType == "Item")
                #expect(info.primaryKey == .objectId(fixId))
                #expect("\(info.primaryKey)" == "objectId(\(fixId.stringValue))")
                #expect(info.reason == "write to \"\(fixId.stringValue)\" in table \"Item\" not allowed; object is outside of the current query view")
                realm.refresh()
                #expect(realm.object(ofType: Item.self, forPrimaryKey: fixId) == nil)

                // Permissions: another owner.
                let itemWithWrongOwner = Item()
                itemWithWrongOwner.ownerId = "This string does not match the user.id"
                itemWithWrongOwner.itemName = "Write code that generates a permission error"
                itemWithWrongOwner.complexity = 1
                let wrongId = itemWithWrongOwner._id
                try realm.write { realm.add(itemWithWrongOwner) }
                let both = try await reports.waitForErrors(2)
                #expect(both[1].compensatingWriteInfo?.first?.reason
                    == "write to \"\(wrongId.stringValue)\" in table \"Item\" was denied by write filter in role \"owner-read-write\"")
                realm.refresh()
                #expect(realm.object(ofType: Item.self, forPrimaryKey: wrongId) == nil)
                #expect(reports.revertedFirst == [true, true])
                // The client log line of the seed page.
                let line = "Received: ERROR \"Client attempted a write that is outside of permissions or query filters; it has been reverted\" (error_code=231, try_again=true, error_action=Warning)"
                #expect(reports.lines.contains { $0.hasPrefix("Sync: Connection[") && $0.contains("]: Session[") && $0.hasSuffix(line) })
                // The legal item is still there, everywhere; nothing was reported twice.
                try await second.syncSession!.wait(for: .download)
                second.refresh()
                #expect(Array(second.objects(Item.self).map(\._id)) == [learnRealm._id])
                try await Task.sleep(for: .milliseconds(200))
                #expect(reports.errors.count == 2)
            }
        }
    }

    @Test func writeToClassWithoutSubscriptionIsRefusedAtCommit() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user, subscribed: false)
                let realm = try await Realm(configuration: config)
                let error = #expect(throws: Realm.Error.self) {
                    try realm.write { realm.add(Item()) }
                }
                #expect(error?.code == .noSubscriptionForWrite)
                #expect(error?.localizedDescription == "Cannot write to class Item when no flexible sync subscription has been created.")
                #expect(realm.objects(Item.self).isEmpty)
            }
        }
    }

    @Test func subscriptionOnNonQueryableFieldFailsThatVersionOnly() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user, subscribed: false)
                let realm = try await Realm(configuration: config)
                let subscriptions = realm.subscriptions
                let error = await #expect(throws: Realm.Error.self) {
                    try await subscriptions.update {
                        subscriptions.append(QuerySubscription<Item> { $0.itemName == "x" })
                    }
                }
                #expect(error?.code == .subscriptionFailed)
                #expect(error?.localizedDescription.contains("\"Item\": key \"itemName\" is not a queryable field") == true)
                guard case .error(let stateError) = subscriptions.state else {
                    Issue.record("expected the error state, got \(subscriptions.state)")
                    return
                }
                #expect((stateError as? SyncError)?.code == .invalidFlexibleSyncSubscriptions)
                // The session goes on: a good set completes.
                try await subscriptions.update {
                    subscriptions.removeAll()
                    subscriptions.append(QuerySubscription<Item> { $0.complexity > 1 })
                }
                #expect(subscriptions.state == .complete)
                #expect(realm.syncSession?.state == .active)
            }
        }
    }
}

/// Outpost-only additions: awaiting the server's verdict, and the commit-time subscription check.
@Suite(.timeLimit(.minutes(3))) struct SyncBeyondRealmTests {
    @Test func theServersVerdictOnATransactionCanBeAwaited() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let config = seedConfiguration(user)
                let realm = try await Realm(configuration: config, downloadBeforeOpen: .always)
                #expect(realm.lastCommittedSyncTransaction == nil)
                let good = Item()
                good.ownerId = user.id
                good.complexity = 2
                try realm.write { realm.add(good) }
                let goodVersion = try #require(realm.lastCommittedSyncTransaction)
                let bad = Item()
                bad.ownerId = user.id
                bad.complexity = 9
                let badId = bad._id
                try realm.write { realm.add(bad) }
                let badVersion = try #require(realm.lastCommittedSyncTransaction)
                #expect(badVersion == goodVersion + 1)
                let session = try #require(realm.syncSession)
                guard case .accepted = try await session.verdict(forTransaction: goodVersion) else {
                    Issue.record("the legal write was not accepted")
                    return
                }
                guard case .rejected(let infos) = try await session.verdict(forTransaction: badVersion) else {
                    Issue.record("the write outside the view was not rejected")
                    return
                }
                #expect(infos.map(\.objectType) == ["Item"])
                #expect(infos.first?.primaryKey == .objectId(badId))
                realm.refresh()
                #expect(realm.object(ofType: Item.self, forPrimaryKey: badId) == nil)
                // The verdict is in the file, written with the revert, for the session after a restart (which
                // loads it when it connects); before, it was kept in memory only and a restart answered `.accepted`.
                let recorded = try realm.instance.syncFile.rejections()
                #expect(recorded.keys.sorted() == [badVersion])
                #expect(recorded[badVersion]?.map(\.table) == ["Item"])
                #expect(recorded[badVersion]?.first?.primaryKey == .objectId(badId))
                #expect(recorded[badVersion]?.first?.reason == infos.first?.reason)
            }
        }
    }

    @Test func optInCheckRefusesWritesOutsideEverySubscriptionAtCommit() async throws {
        try await withTestServer(configuration: try seedServerApp()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                var config = seedConfiguration(user)
                config.syncConfiguration?.rejectsWritesOutsideSubscriptions = true
                let realm = try await Realm(configuration: config)
                let item = Item()
                item.ownerId = user.id
                item.complexity = 7
                let id = item._id
                let error = #expect(throws: Realm.Error.self) { try realm.write { realm.add(item) } }
                #expect(error?.code == .noSubscriptionForWrite)
                #expect(error?.localizedDescription
                    == "Cannot write to object \"\(id.stringValue)\" of class Item: it matches none of the class's subscriptions.")
                #expect(realm.objects(Item.self).isEmpty)
                let ok = Item()
                ok.complexity = 3
                try realm.write { realm.add(ok) }
                #expect(realm.objects(Item.self).count == 1)
            }
        }
    }
}
