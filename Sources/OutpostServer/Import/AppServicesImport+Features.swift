import OutpostCore

extension AppServicesImport {
    /// The Data API: on when the export's Data API configuration is on.
    mutating func importDataAPI() throws(AppImportError) {
        let files = ["https_endpoints/data_api_config.json", "http_endpoints/data_api_config.json", "data_api_config.json"]
        for file in files {
            guard let config = try export.object(file) else { continue }
            dataAPIEnabled = config["disabled"]?.boolValue == false
            report.carry(file, "data_api.enabled \(dataAPIEnabled)")
            if dataAPIEnabled, config["run_as_system"]?.boolValue == true {
                report.leaveOut("\(file): run_as_system",
                    "Outpost's Data API always applies the calling user's rules")
            }
            return
        }
    }

    /// The parts of an App Services app Outpost has no equivalent for, each named in the report.
    mutating func reportUnsupportedFeatures() throws(AppImportError) {
        var environments: [String] = []
        for name in export.list("environments") where name.hasSuffix(".json") {
            if !(try export.object("environments/\(name)")?["values"]?.objectValue ?? [:]).isEmpty {
                environments.append(String(name.dropLast(5)))
            }
        }
        if !environments.isEmpty {
            report.leaveOut("environments (\(environments.joined(separator: ", ")))", "Outpost has no environments")
        }
        let triggers = export.list("triggers").filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
        if !triggers.isEmpty {
            report.leaveOut("triggers (\(triggers.joined(separator: ", ")))",
                "Outpost has no triggers; a process of yours can follow changes through a sync client or the Data API")
        }
        for (folder, what) in [("graphql", "GraphQL (deprecated by MongoDB) has no Outpost equivalent"),
                               ("log_forwarders", "Outpost's log is read in the admin console and its API")]
        where hasContent(folder) {
            report.leaveOut(folder, what)
        }
        if try hostingEnabled() {
            report.leaveOut("hosting", "Outpost serves no static files; use any web server")
        }
        let endpoints = try endpointRoutes()
        if !endpoints.isEmpty {
            report.leaveOut("HTTPS endpoints (\(endpoints.joined(separator: ", ")))",
                "Outpost has no custom endpoints (they run App Services functions)")
        }
        let webhooks = export.list("services").flatMap { export.list("services/\($0)/incoming_webhooks") }
            + export.list("http_endpoints").flatMap { export.list("http_endpoints/\($0)/incoming_webhooks") }
        if !webhooks.isEmpty {
            report.leaveOut("incoming webhooks (\(webhooks.joined(separator: ", ")))",
                "Outpost has no webhooks (they run App Services functions)")
        }
    }

    /// Whether a folder holds anything but empty defaults (a fresh export has `graphql/config.json` and friends).
    private func hasContent(_ folder: String) -> Bool {
        switch folder {
        case "graphql": !export.list("graphql/custom_resolvers").isEmpty
        default: !export.list(folder).isEmpty
        }
    }

    private mutating func hostingEnabled() throws(AppImportError) -> Bool {
        if export.layout == .legacy { return export.root["hosting"]?.objectValue?["enabled"]?.boolValue == true }
        return try export.object("hosting/config.json")?["enabled"]?.boolValue == true
    }

    private mutating func endpointRoutes() throws(AppImportError) -> [String] {
        for file in ["https_endpoints/config.json", "http_endpoints/config.json"] {
            guard let value = try export.json(file) else { continue }
            return (value.arrayValue ?? []).compactMap { endpoint in
                guard let object = endpoint.objectValue, let route = object["route"]?.stringValue else { return nil }
                return "\(object["http_method"]?.stringValue ?? "*") \(route)"
            }
        }
        return []
    }
}
