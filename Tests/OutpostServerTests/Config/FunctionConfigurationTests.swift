import Foundation
import OutpostCore
@testable import OutpostServer
import OutpostServerTesting
import Testing

/// `functions`, `functions_folder`, `values` and `functions_runtime` in an app file.
@Suite struct FunctionConfigurationTests {
    func app(_ fields: String, baseDirectory: URL? = nil) throws -> AppDefinition {
        try AppDefinition(jsonText: #"{"app_id": "a", \#(fields)}"#, baseDirectory: baseDirectory)
    }

    func problem(_ fields: String, baseDirectory: URL? = nil) -> ConfigurationError? {
        do {
            _ = try app(fields, baseDirectory: baseDirectory)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test func entriesValuesAndRuntime() throws {
        let parsed = try app("""
            "functions": [
              {"name": "sum", "source": "exports = (a, b) => a + b;"},
              {"name": "helper", "source": "exports = () => 1;", "private": true, "run_as_system": true,
               "can_evaluate": {"%%user.id": "u1"}},
              {"name": "open", "source": "exports = () => 2;", "can_evaluate": {}}
            ],
            "values": {"greeting": "hi", "limit": {"$numberInt": "5"}},
            "functions_runtime": {"workers": 4, "time_limit_seconds": 2.5, "memory_limit_mb": 128, "max_queued_calls": 0}
            """)
        let functions = parsed.functions
        #expect(functions.definitions.map(\.name) == ["sum", "helper", "open"])
        #expect(functions.definition(named: "helper")?.isPrivate == true)
        #expect(functions.definition(named: "helper")?.runAsSystem == true)
        #expect(functions.definition(named: "helper")?.canEvaluate != nil)
        #expect(functions.definition(named: "open")?.canEvaluate == nil)
        #expect(functions.values["greeting"] == .string("hi"))
        #expect(functions.runtime.workers == 4 && functions.runtime.timeLimitSeconds == 2.5)
        #expect(functions.runtime.memoryLimitMB == 128 && functions.runtime.maxQueuedCalls == 0)
        // Written back and read again, it is the same app.
        #expect(try AppDefinition(jsonText: parsed.jsonText) == parsed)
    }

    @Test func defaultsFollowAppServices() throws {
        let runtime = try app(#""functions": []"#).functions.runtime
        #expect(runtime.timeLimitSeconds == 300 && runtime.memoryLimitMB == 350 && !runtime.allowNetwork)
    }

    @Test func sourcesFromFilesAndAnAppServicesFolder() async throws {
        try await TemporaryDirectory.with("fn-config") { directory in
            let root = directory.url
            let folder = root.appendingPathComponent("functions")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"[{"name": "fromFolder", "private": true}]"#.utf8).write(to: folder.appendingPathComponent("config.json"))
            try Data("exports = () => 'folder';".utf8).write(to: folder.appendingPathComponent("fromFolder.js"))
            try Data("exports = () => 'file';".utf8).write(to: root.appendingPathComponent("one.js"))
            let parsed = try app(#""functions": [{"name": "fromFile", "source_file": "one.js"}], "functions_folder": "functions""#,
                                 baseDirectory: root)
            #expect(parsed.functions.definition(named: "fromFile")?.source == "exports = () => 'file';")
            #expect(parsed.functions.definition(named: "fromFolder")?.source == "exports = () => 'folder';")
            #expect(parsed.functions.definition(named: "fromFolder")?.isPrivate == true)
            let missing = problem(#""functions": [{"name": "x", "source_file": "nope.js"}]"#, baseDirectory: root)
            #expect(missing?.code == .unreadableFile && missing?.path == "functions[0].source_file")
        }
    }

    @Test func mistakesNameTheirPlace() {
        let cases: [(String, ConfigurationError.Code, String)] = [
            (#""functions": {}"#, .wrongType, "functions"),
            (#""functions": [{"source": "x"}]"#, .missingField, "functions[0].name"),
            (#""functions": [{"name": "x"}]"#, .missingField, "functions[0].source"),
            (#""functions": [{"name": "a b", "source": "x"}]"#, .invalidValue, "functions[0].name"),
            (#""functions": [{"name": "x", "source": "x", "privat": true}]"#, .unknownField, "functions[0].privat"),
            (#""functions": [{"name": "x", "source": "1"}, {"name": "x", "source": "2"}]"#, .invalidValue, "functions[1].name"),
            (#""functions": [{"name": "x", "source": "1", "can_evaluate": {"$bad": 1}}]"#, .invalidValue, "functions[0].can_evaluate"),
            (#""values": {"v": {"$oid": "zz"}}"#, .invalidValue, "values.v"),
            (#""functions_runtime": {"workers": 0}"#, .invalidValue, "functions_runtime.workers"),
            (#""functions_runtime": {"time_limit_seconds": -1}"#, .wrongType, "functions_runtime.time_limit_seconds"),
            (#""functions_runtime": {"threads": 2}"#, .unknownField, "functions_runtime.threads"),
        ]
        for (fields, code, path) in cases {
            let error = problem(fields)
            #expect(error?.code == code, "\(fields): \(String(describing: error))")
            #expect(error?.path == path, "\(fields): \(String(describing: error))")
        }
    }
}
