import Foundation
import Outpost
import OutpostTesting
import Testing

/// Several processes on one file. The child processes are Swift Testing exit tests: the test binary
/// re-run with only the closure, which gets the file path through its capture list.
@Suite struct MultiProcessTests {
    @Test func anotherProcessCommitsWhileThisOneHasTheFileOpen() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file().path
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                       objectTypes: ThreadingFixture.types))
        try realm.write { realm.add(TSPerson(id: 0, name: "parent")) }
        await #expect(processExitsWith: .success) { [path = path as String] in
            let child = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                     objectTypes: ThreadingFixture.types))
            #expect(child.objects(TSPerson.self).count == 1)
            for i in 1...20 {
                try child.write { child.add(TSPerson(id: i, name: "child")) }
            }
        }
        #expect(realm.objects(TSPerson.self).count == 1)
        #expect(realm.refresh())
        #expect(realm.objects(TSPerson.self).count == 21)
        #expect(realm.objects(TSPerson.self).filter("name == 'child'").count == 20)
    }

    @Test func twoProcessesWritingConcurrentlyLoseNothing() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file().path
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: ThreadingFixture.types)
        let realm = try await Realm(configuration: configuration)
        try realm.write { realm.create(TSCounter.self, value: ["id": "shared", "value": 0]) }
        let rounds = 150
        // This process increments on a background thread while the child process does the same.
        let parentDone = DispatchSemaphore(value: 0)
        Thread {
            let mine = try! Realm(configuration: configuration)
            for i in 0..<rounds {
                try! mine.write {
                    mine.object(ofType: TSCounter.self, forPrimaryKey: "shared")!.value += 1
                    mine.add(TSPerson(id: 100_000 + i, name: "parent"))
                }
            }
            parentDone.signal()
        }.start()
        await #expect(processExitsWith: .success) { [path = path as String, rounds = rounds as Int] in
            let child = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                     objectTypes: ThreadingFixture.types))
            for i in 0..<rounds {
                try child.write {
                    child.object(ofType: TSCounter.self, forPrimaryKey: "shared")!.value += 1
                    child.add(TSPerson(id: 200_000 + i, name: "child"))
                }
            }
        }
        parentDone.wait()
        realm.refresh()
        #expect(realm.object(ofType: TSCounter.self, forPrimaryKey: "shared")?.value == 2 * rounds)
        #expect(realm.objects(TSPerson.self).count == 2 * rounds)
    }

    @Test func killedWriterLosesNoPrintedCommit() async throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file().path
        let result = await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) { [path = path as String] in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                     objectTypes: ThreadingFixture.types))
            // SIGKILL arrives at an arbitrary point, usually in the middle of a transaction.
            Thread {
                Thread.sleep(forTimeInterval: 0.3 + Double.random(in: 0..<0.2))
                kill(getpid(), SIGKILL)
            }.start()
            var i = 0
            while true {
                i += 1
                try realm.write {
                    let person = TSPerson(id: i, name: "n\(i)")
                    person.scores["i"] = i
                    realm.add(person)
                }
                let line = "committed \(i)\n"
                _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }  // unbuffered
            }
        }
        let output = String(decoding: try #require(result).standardOutputContent, as: UTF8.self)
        let printed = output.split(separator: "\n").compactMap { Int($0.dropFirst("committed ".count)) }
        #expect(printed.count > 5)
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                 objectTypes: ThreadingFixture.types))
        let stored = realm.objects(TSPerson.self)
        #expect(stored.count >= printed.count)
        #expect(stored.count <= printed.count + 1)  // the commit in flight may have landed unprinted
        for i in printed {
            let person = realm.object(ofType: TSPerson.self, forPrimaryKey: i)
            #expect(person?.name == "n\(i)" && person?.scores["i"] == i)
        }
        let copy = dir.file("check.realm")
        try realm.writeCopy(toFile: copy)
        var copyConfiguration = Realm.Configuration(fileURL: copy, objectTypes: ThreadingFixture.types)
        copyConfiguration.readOnly = true
        #expect(try await Realm(configuration: copyConfiguration).objects(TSPerson.self).count == stored.count)
    }
}
