import Foundation
import OutpostCore

/// Turns an Atlas App Services export into an Outpost app configuration and a report of what was carried over and
/// what was not (docs/import.md). Pure: it reads the export and returns; writing the file is the caller's
/// (`outpost-server import-app`), so a failed import leaves nothing behind.
package struct AppServicesImport {
    var export: AppServicesExport
    /// Secret values by name (`--secret name=value`): exports name their secrets and leave the values out.
    let secrets: [String: String]
    var report = AppImportReport()

    var auth: [String: JSONValue] = [:]
    var sync: [String: JSONValue] = [:]
    var schema: [String: JSONValue] = [:]
    var rules: [String: JSONValue] = [:]
    var defaultRule: JSONValue?
    var dataAPIEnabled = false
    var functions: [JSONValue] = []
    var values: [String: JSONValue] = [:]
    /// The class (Realm type) each collection holds: its schema's `title`, or the collection's name.
    var classOfCollection: [String: String] = [:]

    /// The configuration and the report for the export in `folder`. `appId` overrides the export's client app id;
    /// `secrets` gives the values of secrets the export names.
    package static func run(folder: URL, appId: String? = nil, secrets: [String: String] = [:])
        throws(AppImportError) -> (configuration: AppDefinition, report: AppImportReport)
    {
        var importer = AppServicesImport(export: try AppServicesExport(folder: folder), secrets: secrets)
        let id = try importer.appId(override: appId)
        try importer.importRoot()
        try importer.importAuth()
        try importer.importData()
        try importer.importSync()
        try importer.importDataAPI()
        try importer.importFunctionsAndValues()
        try importer.reportUnsupportedFeatures()
        for file in importer.export.repairedFiles {
            importer.report.carry(file, "read after removing trailing commas (App Services accepted them)")
        }
        let configuration = try importer.configuration(appId: id)
        return (configuration, importer.report)
    }

    // MARK: App id and root file

    /// The id clients use (`App(id:)`): the client app id the export records, which Outpost keeps so apps need no
    /// change but the base URL.
    private mutating func appId(override: String?) throws(AppImportError) -> String {
        var id = override
        var source = "--app-id"
        if id == nil {
            switch export.layout {
            case .current:
                id = try export.object(".mdb/meta.json")?["client_app_id"]?.stringValue
                source = ".mdb/meta.json: client_app_id"
            case .realmCLIv2, .legacy:
                id = export.root["app_id"]?.stringValue
                source = "\(export.rootFile): app_id"
            }
            if id == nil || id!.isEmpty, let name = export.root["name"]?.stringValue {
                id = name
                source = "\(export.rootFile): name (the export records no client app id)"
            }
        }
        guard let id, !id.isEmpty else {
            throw AppImportError(file: export.rootFile, "names no app: give the id clients use with --app-id")
        }
        guard id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw AppImportError(file: export.rootFile,
                "the app id '\(id)' has characters an Outpost app id cannot have (ASCII letters, digits, '-', '_'): "
                    + "give one with --app-id")
        }
        report.carry(source, "app_id \"\(id)\"")
        return id
    }

    private mutating func importRoot() throws(AppImportError) {
        let file = export.rootFile
        if let name = export.root["name"]?.stringValue { report.carry("\(file): name", "name \"\(name)\"") }
        let region = ["deployment_model", "provider_region", "location"].filter { export.root[$0] != nil }
        if !region.isEmpty {
            report.leaveOut("\(file): \(region.joined(separator: ", "))",
                "where Atlas hosted the app; Outpost runs where you start it")
        }
        let origins = export.root["allowed_request_origins"] ?? export.root["security"]?.objectValue?["allowed_request_origins"]
        if case .array(let list)? = origins, !list.isEmpty {
            report.leaveOut("\(file): allowed_request_origins",
                "Outpost has no origin allow-list; put the server behind a proxy that checks Origin if you need one")
        }
        if let environment = export.root["environment"]?.stringValue, !environment.isEmpty {
            report.leaveOut("\(file): environment \"\(environment)\"", "Outpost has no environments (see environments/)")
        }
    }

    // MARK: Output

    /// The Outpost app file's JSON, checked the way the server checks it at start (rules parsed too).
    private func configuration(appId: String) throws(AppImportError) -> AppDefinition {
        var root: [String: JSONValue] = ["app_id": .string(appId)]
        if let name = export.root["name"]?.stringValue, !name.isEmpty { root["name"] = .string(name) }
        root["auth"] = .object(auth)
        root["sync"] = .object(sync)
        if !schema.isEmpty { root["schema"] = .object(schema) }
        if !rules.isEmpty { root["rules"] = .object(rules) }
        if let defaultRule { root["default_rule"] = defaultRule }
        root["data_api"] = .object(["enabled": .bool(dataAPIEnabled)])
        if !functions.isEmpty { root["functions"] = .array(functions) }
        if !values.isEmpty { root["values"] = .object(values) }
        let configuration: AppDefinition
        do {
            configuration = try AppDefinition(json: .object(root))
        } catch {
            throw AppImportError(file: export.rootFile, "the converted app is not a valid Outpost app: \(error)")
        }
        do {
            _ = try SyncAppSettings(app: configuration)
        } catch {
            throw AppImportError(file: export.rootFile, "the converted app's rules are not valid: \(error)")
        }
        return configuration
    }
}

extension JSONValue {
    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    package var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    package var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
}
