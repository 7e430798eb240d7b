import Foundation
import OutpostCore

extension AppDefinition {
    /// The app id of the development app that `outpost-server` creates when started without `--config`.
    public static let developmentAppId = "outpost-dev"

    /// The role of the development app: every user reads and writes every document.
    package static let developmentRole: JSONValue = .object([
        "name": .string("default"),
        "apply_when": .object([:]),
        "document_filters": .object(["read": .bool(true), "write": .bool(true)]),
        "read": .bool(true),
        "write": .bool(true),
        "insert": .bool(true),
        "delete": .bool(true),
    ])

    /// A ready development app: development mode on, anonymous and email/password login (auto-confirmed) and API
    /// keys, Flexible Sync with every field queryable (`"*"`, an Outpost extension), and a default role named `default` that lets every user read and
    /// write everything.
    public static func development(appId: String = developmentAppId) -> AppDefinition {
        AppDefinition(
            appId: appId,
            name: appId,
            auth: Auth(
                anonymousEnabled: true, emailPasswordEnabled: true, emailPasswordAutoConfirm: true, apiKeysEnabled: true),
            sync: Sync(mode: .flexible, queryableFieldsNames: ["*"], developmentModeEnabled: true),
            defaultRule: .object(["roles": .array([developmentRole])]),
            dataAPI: DataAPI(enabled: true)
        )
    }

    /// The app of a data directory without a configuration file: `<dataDirectory>/app.json` when it exists,
    /// otherwise a new ``development(appId:)`` app written there, so the app id stays the same across restarts.
    public static func loadOrCreateDevelopment(in dataDirectory: URL) throws(ConfigurationError) -> AppDefinition {
        let url = dataDirectory.appendingPathComponent("app.json")
        if FileManager.default.fileExists(atPath: url.path) {
            return try AppDefinition(contentsOf: url)
        }
        let app = development()
        try app.write(to: url)
        return app
    }
}
