import Foundation
import Synchronization
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// The admin console (`/admin`): the page and its assets with their security headers, and its script driven by
/// Node.js (`AdminConsoleHarness`) against a real server: sign-in, each tab, deleting a user, a collection's
/// documents, the log filter and sign-out.
@Suite struct AdminConsoleTests {
    @Test func thePageAndItsAssetsAreServedWithASecurityPolicy() async throws {
        try await withDataServer { server in
            let assets: [(String, String)] =
                [("/admin", "text/html"), ("/admin/console.js", "text/javascript"), ("/admin/console.css", "text/css")]
                + AdminConsoleScript.viewNames.map { ("/admin/\($0).js", "text/javascript") }
            for (path, type) in assets {
                let response = try await server.client.send("GET", path)
                #expect(response.status == 200, "\(path)")
                #expect(response.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
                let policy = response.headers["content-security-policy"] ?? ""
                #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'")
                        && !policy.contains("unsafe-inline"), "\(path): \(policy)")
                #expect(response.headers["cache-control"] == "no-store")
            }
            // `/admin/` would break the page's relative links: it is sent to `/admin`.
            let slash = try Self.rawGET(port: server.port, path: "/admin/")
            #expect(slash.hasPrefix("HTTP/1.1 301") && slash.lowercased().contains("location: ../admin\r\n"), "\(slash)")
            let page = try await server.client.send("GET", "/admin")
            #expect(page.text.contains(#"<script src="admin/console.js" defer></script>"#))
            // Each view's script, after the core (which its script uses), in the order of `viewNames`.
            var previous = page.text.range(of: #"<script src="admin/console.js""#)?.upperBound
            for name in AdminConsoleScript.viewNames {
                let tag = page.text.range(of: #"<script src="admin/\#(name).js" defer></script>"#)
                let inOrder = tag.flatMap { found in previous.map { found.lowerBound > $0 } } ?? false
                #expect(inOrder, "\(name).js is loaded after the scripts before it")
                previous = tag?.upperBound
            }
            #expect(!page.text.contains("<script>"), "no inline script")
        }
    }

    /// The scripts never turn data into markup: everything goes into text nodes.
    @Test func theScriptWritesNoMarkup() {
        let scripts = [(name: "console", text: AdminConsoleScript.text)] + AdminConsoleScript.views
        for script in scripts {
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                #expect(!script.text.contains(sink), "\(script.name).js: \(sink)")
            }
        }
    }

    /// Every admin API path the script calls exists (and needs the key).
    @Test func theScriptCallsOnlyAdminAPIPathsThatExist() async throws {
        try await withDataServer { server in
            let key = try server.adminKey
            for (call, path) in [("/app", "/app"), ("/sessions", "/sessions"), ("/users", "/users"),
                                 ("/collections", "/collections"), ("/logs", "/logs?limit=100")] {
                #expect(AdminConsoleScript.text.contains(#"request(""# + call + "\""), "\(call)")
                #expect(try await server.client.send("GET", "/api/admin/v1" + path, headers: ["X-Admin-Key": key]).status == 200, "\(path)")
                #expect(try await server.client.send("GET", "/api/admin/v1" + path).status == 403, "\(path)")
            }
            #expect(AdminConsoleScript.text.contains(#"request("/collections/" + encodeURIComponent(name) + "/documents?limit=100")"#))
            #expect(AdminConsoleScript.text.contains(#"changeUser("/users/" + encodeURIComponent(id), "DELETE""#))
            #expect(AdminConsoleScript.text.contains(#"(disabled ? "/disable" : "/enable"), "PUT""#))
            let app = try await server.client.send("GET", "/api/admin/v1/app", headers: ["X-Admin-Key": key])
            let json = JSONValue.parse(app.text)
            #expect(json?["app_id"] == .string(server.appId))
            #expect(json?["sync"]?["mode"] == .string("flexible"))
            #expect(!app.text.contains("signing") && !app.text.contains("public_key") && !app.text.contains(key),
                    "no secrets: \(app.text)")
        }
    }

    /// Needs Node.js; `.ci/run` installs Debian's `nodejs`, and under `CI=true` the test runs (and fails) without it.
    @Test(.enabled(if: AdminConsoleTests.node != nil || ProcessInfo.processInfo.environment["CI"] == "true",
                   Comment(rawValue: "needs Node.js (node on the PATH)")))
    func theConsoleDrivesTheAdminAPI() async throws {
        let node = try #require(Self.node, "Node.js is needed (node on the PATH)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("console.js")
        let harness = directory.appendingPathComponent("harness.js")
        try AdminConsoleScript.text.write(to: script, atomically: true, encoding: .utf8)
        try AdminConsoleHarness.script.write(to: harness, atomically: true, encoding: .utf8)

        try await withDataServer { server in
            let key = try server.adminKey
            let alice = try await server.newUser()
            let bob = try await server.newUser()
            try await server.ok("Item", "insertMany",
                #"{"documents": [{"_id": 1, "name": "first"}, {"_id": 2, "name": "<img src=x onerror=alert(1)>"}]}"#, as: alice)
            try await server.storage.appendLog(LogRecord(
                appId: server.appId, kind: "compensating_write", level: "warning", message: "write to Item rejected",
                details: .document(["table": .string("Item")])))

            let output = try await Self.run(node, [harness.path, script.path, "http://127.0.0.1:\(server.port)/", key, bob.id, "Item",
                                                   "compensating_write"])
            let transcript = try #require(JSONValue.parse(output), "not JSON: \(output)")
            func text(_ step: String) -> String { transcript[step]?.stringValue ?? "" }

            #expect(text("signIn").contains("Sign in"))
            #expect(text("wrongKey") == "The server refused this admin key.")
            #expect(text("storedKey") == key)
            #expect(text("header") == "app \(server.appId)")
            #expect(text("overview").contains("App id | \(server.appId)") && text("overview").contains("Live sync connections | 0"),
                    "\(text("overview"))")
            #expect(text("users").contains("Users (2)") && text("users").contains(alice.id) && text("users").contains(bob.id))
            // Disable, then enable: the row's state and button follow, and the server refuses the user meanwhile.
            #expect(text("disabled").contains("\(bob.id) | anon-user | \(bob.id) |") && text("disabled").contains("| disabled | Enable"),
                    "\(text("disabled"))")
            #expect(text("disableStatus") == "Disabled user \(bob.id).")
            #expect(text("enabled").contains("| active | Disable") && !text("enabled").contains("| disabled |"), "\(text("enabled"))")
            #expect(text("afterDelete").contains("Users (1)") && !text("afterDelete").contains(bob.id), "\(text("afterDelete"))")
            #expect(text("deleteStatus") == "Deleted user \(bob.id).")
            #expect(try await server.storage.user(appId: server.appId, id: bob.id) == nil, "the user is gone from the server")
            #expect(text("collections").contains("Item | 2"), "\(text("collections"))")
            #expect(text("documents").contains("Item (2)") && text("documents").contains(#""name": "first""#))
            #expect(text("documents").contains(#""name": "<img src=x onerror=alert(1)>""#), "shown as text")
            #expect(transcript["documentBlocks"] == .int(2))
            #expect(text("back").contains("Collections"))
            // The log tab shows the log: the deletion (kind admin) and the compensating write; the filter keeps one.
            #expect(text("logs").contains("deleted user \(bob.id)") && text("logs").contains("write to Item rejected"),
                    "\(text("logs"))")
            #expect(text("filteredLogs").contains("write to Item rejected") && !text("filteredLogs").contains("deleted user"),
                    "\(text("filteredLogs"))")
            // Auto-refresh: armed when ticked, refreshes the records only (the filter stays), stopped on leaving.
            #expect(transcript["timersArmed"] == .int(1))
            #expect(text("kindAfterAutoRefresh") == "compensating_write")
            #expect(transcript["timerCleared"] == .bool(true) && transcript["timerAfterLeaving"] == .null)
            // A slow answer for the tab left behind does not overwrite the tab the user went to.
            #expect(text("race").hasPrefix("Overview"), "\(text("race"))")
            #expect(text("afterSignOut").contains("Sign in") && transcript["storedKeyAfterSignOut"] == .null)
            #expect(text("reopened").contains("App id | \(server.appId)"))
            guard case .object(let steps) = transcript else { return }
            for (step, value) in steps {
                #expect(!(value.stringValue ?? "").contains("null") && !(value.stringValue ?? "").contains("undefined"),
                        "\(step) shows a stray value: \(value)")
            }
        }
    }

    /// The head of the answer to a GET (URLSession would follow a redirect).
    static func rawGET(port: Int, path: String) throws -> String {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard write(fd, request, request.count) == request.count else { throw TestServerError("write failed") }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// The `node` executable on the PATH, if any.
    static let node: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/node" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs a child process to its end (killed after 180 s) and returns its standard output. The pipes are read on
    /// threads of their own (`PipeDrain`), not on Swift concurrency's two-thread pool that the in-process server
    /// answers the child on.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let output = Pipe()
        let errors = Pipe()
        let process = try ChildProcess(executable: URL(fileURLWithPath: executable), arguments: arguments,
                                       standardOutput: output,
                                       standardError: errors)
        let collected = Mutex((output: Data(), errors: Data(), open: 2))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let ended: @Sendable () -> Void = {
                if collected.withLock({ $0.open -= 1; return $0.open == 0 }) { done.resume() }
            }
            PipeDrain.start(output.fileHandleForReading, onData: { data in collected.withLock { $0.output += data } }, onEnd: ended)
            PipeDrain.start(errors.fileHandleForReading, onData: { data in collected.withLock { $0.errors += data } }, onEnd: ended)
            let pid = process.processIdentifier
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 180)
                kill(pid, SIGKILL)
            }
        }
        process.waitUntilExit()
        let (data, errorData, _) = collected.withLock { $0 }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw TestServerError("node ended with \(process.terminationStatus): \(String(decoding: errorData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
