import Foundation
import Outpost
import OutpostServer
import OutpostServerTesting
import Testing

/// `user.functions` (Realm's `Functions`) against a real server whose functions run in Node.js.
@Suite struct FunctionsTests {
    static func app(runtime: AppDefinition.Runtime = AppDefinition.Runtime()) throws -> AppDefinition {
        var app = try seedServerApp(appId: "functions-\(UUID().uuidString.prefix(8))")
        app.functions = AppDefinition.Functions(definitions: [
            .init(name: "sum", source: "exports = (...numbers) => numbers.reduce((a, b) => a + b, 0);"),
            .init(name: "echo", source: "exports = (...args) => args;"),
            .init(name: "secret", source: "exports = () => 'hidden';", isPrivate: true),
            .init(name: "fails", source: "exports = () => { throw new Error('the function threw'); };"),
            .init(name: "spin", source: "exports = () => { for (;;) {} };"),
            .init(name: "grow", source: "exports = () => { const a = []; for (;;) a.push(new Array(1e5).fill(1.5)); };"),
            .init(name: "addItem", source: """
                exports = async function(itemName, complexity) {
                  const items = context.services.get("mongodb-atlas").db("todo").collection("Item");
                  const { insertedId } = await items.insertOne({
                    _id: new BSON.ObjectId(), ownerId: context.user.id, itemName, complexity });
                  return insertedId;
                };
                """),
            .init(name: "readItem", source: """
                exports = (id) => context.services.get("mongodb-atlas").db("todo").collection("Item").findOne({ _id: id });
                """),
        ], runtime: runtime)
        return app
    }

    @Test func everyBSONTypeRoundTrips() async throws {
        try await withTestServer(configuration: try Self.app()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let arguments: [AnyBSON] = [
                    .int32(-7), .int64(1 << 40), .double(2.0), .double(-0.5), .string("ünïcode ✓"), .bool(true), .null,
                    .objectId(ObjectId.generate()), .decimal128(try Decimal128(string: "12345.6789")),
                    .datetime(Date(timeIntervalSince1970: 1_700_000_000.25)), .binary(Data([0, 1, 254, 255])),
                    .uuid(UUID()), .timestamp(Date(timeIntervalSince1970: 1_700_000_000)), .minKey, .maxKey,
                    .document(["nested": .array([.int32(1), .string("two"), .null]), "empty": .document([:])]),
                    .array([]),
                ]
                let echoed = try await user.functions.echo(arguments)
                #expect(echoed == .array(arguments.map { Optional($0) }), "\(echoed)")
                // A nil entry is sent as null and comes back as `.null`.
                #expect(try await user.functions.echo([.array([nil])]) == .array([.array([.null])]))
                let regex = try await user.functions.echo([.regex(try NSRegularExpression(pattern: "^a.c$", options: [.caseInsensitive]))])
                guard case .array(let items) = regex, case .regex(let back)?? = items.first else {
                    Issue.record("expected a regular expression back, got \(regex)")
                    return
                }
                #expect(back.pattern == "^a.c$" && back.options == [.caseInsensitive])
            }
        }
    }

    @Test func realmsThreeForms() async throws {
        try await withTestServer(configuration: try Self.app()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                // Async, arguments spelled out; and the deprecated array form.
                #expect(try await user.functions.sum(1, 2, 3, 4, 5) == .int32(15))
                #expect(try await user.functions.sum([.int32(1), .int32(2)]) == .int32(3))
                // Completion handler.
                let viaHandler: AnyBSON? = try await withCheckedThrowingContinuation { continuation in
                    user.functions.sum([1, 2]) { (result: AnyBSON?, error: Error?) in
                        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: result) }
                    }
                }
                #expect(viaHandler == .int32(3))
                // Result handler.
                let viaResult: AnyBSON = try await withCheckedThrowingContinuation { continuation in
                    user.functions.sum([2, 2]) { (result: Result<AnyBSON, Error>) in continuation.resume(with: result) }
                }
                #expect(viaResult == .int32(4))
            }
        }
    }

    @Test func callsFromTheMainActorAndFromAnActor() async throws {
        try await withTestServer(configuration: try Self.app()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                #expect(try await Self.sumOnTheMainActor(user) == .int32(42))
                #expect(try await Adder().sum(user) == .int32(7))
            }
        }
    }

    @MainActor static func sumOnTheMainActor(_ user: User) async throws -> AnyBSON {
        let sum = try await user.functions.sum(20, 22)
        MainActor.assertIsolated()
        return sum
    }

    actor Adder {
        func sum(_ user: User) async throws -> AnyBSON {
            let sum = try await user.functions.sum(3, 4)
            assertIsolated()
            return sum
        }
    }

    @Test func errorsCarryRealmsCodes() async throws {
        var runtime = AppDefinition.Runtime()
        runtime.timeLimitSeconds = 1
        runtime.memoryLimitMB = 48
        try await withTestServer(configuration: try Self.app(runtime: runtime)) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let missing = await appError { try await user.functions.nosuch() }
                #expect(missing?.code == .functionNotFound)
                #expect(missing?.message == "function not found: 'nosuch'")
                let secret = await appError { try await user.functions.secret() }
                #expect(secret?.code == .notCallable)
                let fails = await appError { try await user.functions.fails() }
                #expect(fails?.code == .functionExecutionError)
                #expect(fails?.message.contains("the function threw") == true)
                let spin = await appError { try await user.functions.spin() }
                #expect(spin?.code == .executionTimeLimitExceeded)
                let grow = await appError { try await user.functions.grow() }
                #expect(grow?.code == .functionExecutionError)
                #expect(grow?.message.contains("memory limit") == true)
                #expect(try await user.functions.sum(1, 1) == .int32(2))
            }
        }
    }

    @Test func aFunctionsWriteReachesASubscribedSyncClient() async throws {
        try await withTestServer(configuration: try Self.app()) { server in
            try await withClientApp(server) { app in
                let user = try await app.login(credentials: .anonymous)
                let realm = try await Realm(configuration: seedConfiguration(user))
                #expect(realm.objects(Item.self).isEmpty)
                let id = try await user.functions.addItem("written by a function", 3)
                guard case .objectId(let oid) = id else {
                    Issue.record("expected the new item's ObjectId, got \(id)")
                    return
                }
                try await eventually("the function's item reached the synced realm") {
                    realm.refresh()
                    return realm.object(ofType: Item.self, forPrimaryKey: oid)?.itemName == "written by a function"
                }
                // Another user's function call does not see it (the Item rule: owners only).
                try await app.emailPasswordAuth.registerUser(email: "other@example.com", password: "password1")
                let other = try await app.login(credentials: .emailPassword(email: "other@example.com", password: "password1"))
                #expect(other.id != user.id)
                #expect(try await other.functions.readItem(id) == .null)
                #expect(try await user.functions.readItem(id).documentValue?["itemName"] == .string("written by a function"))
            }
        }
    }
}
