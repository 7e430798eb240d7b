import OutpostCore

extension AppServicesImport {
    /// Functions (`functions/config.json` + `<name>.js`, or the legacy `functions/<name>/config.json` +
    /// `source.js`) with their sources inline, and values (`values/<name>.json`; a secret's value from `--secret`).
    mutating func importFunctionsAndValues() throws(AppImportError) {
        for entry in try functionEntries() {
            guard let name = entry.config["name"]?.stringValue else { continue }
            guard let source = try export.text(entry.sourceFile) else {
                report.leaveOut("functions/\(name)", "its source \(entry.sourceFile) is missing from the export")
                continue
            }
            var function: [String: JSONValue] = ["name": .string(name), "source": .string(source)]
            for key in ["private", "run_as_system"] { function[key] = entry.config[key]?.boolValue.map(JSONValue.bool) }
            if let canEvaluate = entry.config["can_evaluate"], canEvaluate != .object([:]) {
                function["can_evaluate"] = canEvaluate
            }
            do {
                _ = try AppDefinition(json: .object(["app_id": .string("check"), "functions": .array([.object(function)])]))
            } catch {
                report.leaveOut("functions/\(name)", "Outpost cannot take it: \(error)")
                continue
            }
            functions.append(.object(function))
            report.carry(entry.configFile, "function '\(name)'")
        }
        for file in export.list("values") where file.hasSuffix(".json") {
            guard let value = try export.object("values/\(file)"), let name = value["name"]?.stringValue else { continue }
            if value["from_secret"]?.boolValue == true {
                guard let secretName = value["value"]?.stringValue, let secret = secrets[secretName] else {
                    report.leaveOut("values/\(file)", "its value is the secret '\(value["value"]?.stringValue ?? "?")'; "
                        + "give it with --secret")
                    continue
                }
                values[name] = .string(secret)
            } else {
                values[name] = value["value"] ?? .null
            }
            report.carry("values/\(file)", "value '\(name)'")
        }
    }

    private struct FunctionEntry {
        var config: [String: JSONValue]
        var configFile: String
        var sourceFile: String
    }

    private mutating func functionEntries() throws(AppImportError) -> [FunctionEntry] {
        if export.layout == .legacy {
            var entries: [FunctionEntry] = []
            for folder in export.list("functions") where export.isFolder("functions/\(folder)") {
                let file = "functions/\(folder)/config.json"
                guard let config = try export.object(file) else { continue }
                entries.append(FunctionEntry(config: config, configFile: file, sourceFile: "functions/\(folder)/source.js"))
            }
            return entries
        }
        guard case .array(let items)? = try export.json("functions/config.json") else { return [] }
        return items.compactMap { item in
            guard case .object(let config) = item, let name = config["name"]?.stringValue else { return nil }
            return FunctionEntry(config: config, configFile: "functions/config.json", sourceFile: "functions/\(name).js")
        }
    }
}
