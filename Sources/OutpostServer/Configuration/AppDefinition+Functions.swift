import Foundation
import OutpostCore

extension AppDefinition {
    /// The app's App Services functions, the values they read with `context.values.get`, and how the server runs
    /// them (docs/functions.md).
    public struct Functions: Sendable, Hashable {
        public var definitions: [FunctionDefinition]
        /// `values`: name → value (Extended JSON), for `context.values.get(name)` and `%%values` in rules.
        package var values: [String: JSONValue]
        public var runtime: Runtime

        public init(definitions: [FunctionDefinition] = [], runtime: Runtime = Runtime()) {
            self.definitions = definitions
            self.values = [:]
            self.runtime = runtime
        }

        public func definition(named name: String) -> FunctionDefinition? {
            definitions.first { $0.name == name }
        }

        /// The values as rules read them (`%%values.<name>`).
        package var ruleValues: Document {
            var out = Document()
            for (name, json) in values { out[name] = try? Value(extendedJSON: json) }
            return out
        }
    }

    /// One function: `{"name", "source" | "source_file", "private", "run_as_system", "can_evaluate"}`, as in an
    /// App Services app's `functions/config.json` with the source beside it.
    public struct FunctionDefinition: Sendable, Hashable {
        public var name: String
        /// The JavaScript file's text: `exports = function(…) { … }`.
        public var source: String
        /// Private functions run only from other functions (`context.functions.execute`) and the admin console.
        public var isPrivate: Bool
        /// Runs with no rules (`context.services` sees and writes everything) instead of the caller's.
        public var runAsSystem: Bool
        /// A rule expression over `%%user` a client call must satisfy (nil: any authenticated user).
        package var canEvaluate: JSONValue?

        public init(name: String, source: String, isPrivate: Bool = false, runAsSystem: Bool = false) {
            self.name = name
            self.source = source
            self.isPrivate = isPrivate
            self.runAsSystem = runAsSystem
            self.canEvaluate = nil
        }
    }

    /// `functions_runtime`: the out-of-process JavaScript runtime's limits. Defaults follow App Services' documented
    /// limits where there are some (300 s per call, 350 MB of memory).
    public struct Runtime: Sendable, Hashable {
        /// The Node.js executable (nil: `OUTPOST_NODE`, then `node` or `nodejs` on the `PATH`).
        public var node: String?
        /// Worker processes; each runs one call at a time.
        public var workers = 2
        /// Calls that may wait for a free worker; one more is refused at once (429).
        public var maxQueuedCalls = 64
        /// How long one call may run before its worker is killed.
        public var timeLimitSeconds = 300.0
        /// Each worker's V8 heap limit (`--max-old-space-size`); a call that needs more ends its worker.
        public var memoryLimitMB = 350
        /// Whether functions may reach the network (`context.http`, `fetch`, `http`/`net` modules).
        public var allowNetwork = false
        /// The most log lines one call keeps; later ones are counted, not kept.
        public var maxLogLinesPerCall = 256

        public init() {}
    }
}

extension AppDefinition.Functions {
    static let fieldNames: Set<String> = ["functions", "functions_folder", "values", "functions_runtime"]

    /// Reads `functions`, `functions_folder`, `values` and `functions_runtime` of an app file; file paths are
    /// relative to `baseDirectory` (the app file's folder; the working directory when nil).
    init(_ root: ConfigurationReader, baseDirectory: URL?) throws(ConfigurationError) {
        self.init()
        if let value = root.value("functions") {
            guard case .array(let items) = value else { throw root.wrongType("functions", "an array of functions", value) }
            for (i, item) in items.enumerated() {
                let reader = try ConfigurationReader(item, path: "functions[\(i)]")
                definitions.append(try Self.definition(reader, source: nil, baseDirectory: baseDirectory))
            }
        }
        if let folder = try root.string("functions_folder") {
            definitions += try Self.folder(folder, path: root.path(of: "functions_folder"), baseDirectory: baseDirectory)
        }
        var seen = Set<String>()
        for (i, definition) in definitions.enumerated() where !seen.insert(definition.name).inserted {
            throw ConfigurationError(
                .invalidValue, path: "functions[\(i)].name", "the function name \"\(definition.name)\" is used twice")
        }
        if let values = try root.object("values") {
            for (name, value) in values.fields {
                guard (try? Value(extendedJSON: value)) != nil else {
                    throw ConfigurationError(.invalidValue, path: values.path(of: name), "is not a valid Extended JSON value")
                }
                self.values[name] = value
            }
        }
        if let reader = try root.object("functions_runtime") { runtime = try Self.runtime(reader) }
    }

    private static func definition(_ reader: ConfigurationReader, source fileSource: String?, baseDirectory: URL?)
        throws(ConfigurationError) -> AppDefinition.FunctionDefinition
    {
        try reader.rejectUnknownFields([
            "name", "source", "source_file", "private", "run_as_system", "can_evaluate", "disable_arg_logs", "id",
        ])
        let name = try reader.requiredString("name")
        guard !name.isEmpty, name.count <= 256, name.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) else {
            throw ConfigurationError(.invalidValue, path: reader.path(of: "name"),
                                     "expected letters, digits, '_', '-' or '.', found \"\(name)\"")
        }
        var source = fileSource
        if let inline = try reader.string("source") { source = inline }
        if let file = try reader.string("source_file") {
            source = try read(file, path: reader.path(of: "source_file"), baseDirectory: baseDirectory)
        }
        guard let source else {
            throw ConfigurationError(.missingField, path: reader.path(of: "source"),
                                     "a function needs its JavaScript: \"source\" or \"source_file\"")
        }
        var definition = AppDefinition.FunctionDefinition(
            name: name, source: source, isPrivate: try reader.bool("private", default: false),
            runAsSystem: try reader.bool("run_as_system", default: false))
        if let canEvaluate = reader.value("can_evaluate") {
            // App Services writes `{}` for "anyone"; an expression is checked now so that a call never meets a bad one.
            if case .object(let fields) = canEvaluate, fields.isEmpty {
            } else {
                do {
                    _ = try RuleExpression.parse(canEvaluate, path: reader.path(of: "can_evaluate"))
                } catch {
                    throw ConfigurationError(.invalidValue, path: reader.path(of: "can_evaluate"), error.message)
                }
                definition.canEvaluate = canEvaluate
            }
        }
        return definition
    }

    /// An App Services `functions/` folder: `config.json` (an array of definitions) and `<name>.js` beside it.
    private static func folder(_ folder: String, path: String, baseDirectory: URL?) throws(ConfigurationError)
        -> [AppDefinition.FunctionDefinition]
    {
        let directory = resolve(folder, baseDirectory: baseDirectory)
        let configText = try read("config.json", path: path, baseDirectory: directory)
        guard let json = JSONValue.parse(configText), case .array(let items) = json else {
            throw ConfigurationError(.invalidJSON, path: path, "\(directory.path)/config.json is not a JSON array")
        }
        var definitions: [AppDefinition.FunctionDefinition] = []
        for (i, item) in items.enumerated() {
            let reader = try ConfigurationReader(item, path: "\(path)/config.json[\(i)]")
            let name = try reader.requiredString("name")
            let source = try read("\(name).js", path: reader.path(of: "name"), baseDirectory: directory)
            definitions.append(try definition(reader, source: source, baseDirectory: directory))
        }
        return definitions
    }

    private static func resolve(_ file: String, baseDirectory: URL?) -> URL {
        if file.hasPrefix("/") { return URL(fileURLWithPath: file) }
        let base = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return base.appendingPathComponent(file)
    }

    private static func read(_ file: String, path: String, baseDirectory: URL?) throws(ConfigurationError) -> String {
        let url = resolve(file, baseDirectory: baseDirectory)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ConfigurationError(.unreadableFile, path: path, "cannot read \(url.path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func runtime(_ reader: ConfigurationReader) throws(ConfigurationError) -> AppDefinition.Runtime {
        try reader.rejectUnknownFields([
            "node", "workers", "max_queued_calls", "time_limit_seconds", "memory_limit_mb", "allow_network",
            "max_log_lines_per_call",
        ])
        var runtime = AppDefinition.Runtime()
        runtime.node = try reader.string("node")
        runtime.workers = try reader.positiveInt("workers", default: runtime.workers)
        runtime.maxQueuedCalls = try reader.nonNegativeInt("max_queued_calls", default: runtime.maxQueuedCalls)
        if let value = reader.value("time_limit_seconds") {
            let seconds: Double
            switch value {
            case .int(let n): seconds = Double(n)
            case .double(let x): seconds = x
            default: seconds = 0
            }
            guard seconds > 0, seconds.isFinite else {
                throw reader.wrongType("time_limit_seconds", "a positive number of seconds", value)
            }
            runtime.timeLimitSeconds = seconds
        }
        runtime.memoryLimitMB = try reader.positiveInt("memory_limit_mb", default: runtime.memoryLimitMB)
        runtime.allowNetwork = try reader.bool("allow_network", default: false)
        runtime.maxLogLinesPerCall = try reader.nonNegativeInt("max_log_lines_per_call", default: runtime.maxLogLinesPerCall)
        return runtime
    }

    /// The app file's fields for these functions (sources inline), only those that are set.
    var jsonFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if !definitions.isEmpty {
            fields["functions"] = .array(definitions.map { definition in
                var object: [String: JSONValue] = [
                    "name": .string(definition.name), "source": .string(definition.source),
                    "private": .bool(definition.isPrivate), "run_as_system": .bool(definition.runAsSystem),
                ]
                object["can_evaluate"] = definition.canEvaluate
                return .object(object)
            })
        }
        if !values.isEmpty { fields["values"] = .object(values) }
        if runtime != AppDefinition.Runtime() {
            var object: [String: JSONValue] = [
                "workers": .int(Int64(runtime.workers)), "max_queued_calls": .int(Int64(runtime.maxQueuedCalls)),
                "time_limit_seconds": .double(runtime.timeLimitSeconds),
                "memory_limit_mb": .int(Int64(runtime.memoryLimitMB)), "allow_network": .bool(runtime.allowNetwork),
                "max_log_lines_per_call": .int(Int64(runtime.maxLogLinesPerCall)),
            ]
            object["node"] = runtime.node.map(JSONValue.string)
            fields["functions_runtime"] = .object(object)
        }
        return fields
    }
}
