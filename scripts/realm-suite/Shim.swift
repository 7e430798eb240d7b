// The harness base class for Realm Swift's own tests, compiled against `import Outpost` (written here; Realm's
// TestCase derives from an Objective-C base). Used by scripts/realm-suite/run.sh only, never by the test suite.
import Foundation
@_spi(Testing) import Outpost
import XCTest

func inMemoryRealm(_ inMememoryIdentifier: String) -> Realm {
    return try! Realm(configuration: Realm.Configuration(inMemoryIdentifier: inMememoryIdentifier))
}

func openRealm(configuration: Realm.Configuration = .defaultConfiguration,
               actor: isolated any Actor,
               downloadBeforeOpen: Realm.OpenBehavior = .never) async throws -> Realm {
    try await Realm.open(configuration: configuration, downloadBeforeOpen: downloadBeforeOpen)
}

let RLMExceptionName = "RLMException"

class TestCase: XCTestCase, @unchecked Sendable {
    @Locked var exceptionThrown = false
    var testDir: String! = nil
    let queue = DispatchQueue(label: "background")

    func configurationWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) -> Realm.Configuration {
        var configuration = configuration
        configuration.fileURL = testRealmURL()
        return configuration
    }

    @discardableResult
    func realmWithTestPath(configuration: Realm.Configuration = Realm.Configuration()) -> Realm {
        var configuration = configuration
        configuration.fileURL = testRealmURL()
        return try! Realm(configuration: configuration)
    }

    override func setUp() {
        super.setUp()
        testDir = NSTemporaryDirectory() + "/rs-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: testDir, withIntermediateDirectories: true)
        Realm.Configuration.defaultConfiguration = Realm.Configuration(fileURL: defaultRealmURL())
    }

    // As Realm's TestCase: after the test (setUp, body and tearDown, whether or not a subclass calls super), reset
    // Realm's state. Realm's reset closes every Realm; Linux's XCTest keeps each test case instance, with the managed
    // objects its properties hold, to the end of the run, so the next test's in-memory Realms start anew instead.
    override func invokeTest() {
        super.invokeTest()
        queue.sync { }
        Realm._startNewInMemoryRealms()
    }

    override func tearDown() {
        queue.sync { }
        try? FileManager.default.removeItem(atPath: testDir)
        // The next test may not be a TestCase (LoggerTests): leave it a default configuration whose folder exists.
        Realm.Configuration.defaultConfiguration = Realm.Configuration(
            fileURL: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("rs-default.realm"))
        super.tearDown()
    }

    func resetRealmState() { Realm._startNewInMemoryRealms() }

    func dispatchSyncNewThread(block: @Sendable @escaping () -> Void) {
        queue.async { block() }
        queue.sync { }
    }

    func dispatchSyncBackground(block: @Sendable @escaping (TestCase) -> Void) {
        nonisolated(unsafe) let unsafeSelf = self
        queue.async { block(unsafeSelf) }
        queue.sync { }
    }

    // Realm's assertThrows catches Objective-C exceptions; on Linux those are traps, so the harness skips the block.
    func assertThrows<T>(_ block: @autoclosure () -> T, named: String? = RLMExceptionName,
                         _ message: String? = nil, fileName: String = #file, lineNumber: UInt = #line) {
        exceptionThrown = true
    }
    func assertThrows<T>(_ block: @autoclosure () -> T, reason: String,
                         _ message: String? = nil, fileName: String = #file, lineNumber: UInt = #line) {
        exceptionThrown = true
    }
    func assertThrows<T>(_ block: @autoclosure () -> T, reasonMatching regexString: String,
                         _ message: String? = nil, fileName: String = #file, lineNumber: UInt = #line) {
        exceptionThrown = true
    }

    internal func testRealmURL() -> URL { realmURLForFile("test.realm") }
    internal func defaultRealmURL() -> URL { realmURLForFile("default.realm") }
    private func realmURLForFile(_ fileName: String) -> URL {
        URL(fileURLWithPath: testDir, isDirectory: true).appendingPathComponent(fileName, isDirectory: false)
    }
}

extension Realm {
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: [String: Any], update: UpdatePolicy = .error) -> T {
        return create(type, value: value as Any, update: update)
    }
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: [Any], update: UpdatePolicy = .error) -> T {
        return create(type, value: value as Any, update: update)
    }
}

extension Object {
    public convenience init(value: [String: Any]) { self.init(value: value as Any) }
    public convenience init(value: [Any]) { self.init(value: value as Any) }
}

/// Realm's Objective-C test base; XCTest's is the nearest on Linux.
typealias RLMTestCaseBase = XCTestCase

/// Objective-C's autorelease pools do not exist on Linux; the body runs as is.
func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result { try body() }

// Realm's Objective-C assertions that an Objective-C exception is raised: as assertThrows above, the block is skipped.
func RLMAssertThrowsWithName(_ test: XCTestCase, _ block: () -> Void, _ name: String?, _ message: String?,
                             _ fileName: String, _ lineNumber: UInt) {}
func RLMAssertThrowsWithReason(_ test: XCTestCase, _ block: () -> Void, _ reason: String, _ message: String?,
                               _ fileName: String, _ lineNumber: UInt) {}
func RLMAssertThrowsWithReasonMatching(_ test: XCTestCase, _ block: () -> Void, _ regex: String, _ message: String?,
                                       _ fileName: String, _ lineNumber: UInt) {}
