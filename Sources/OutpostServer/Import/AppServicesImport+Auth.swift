import OutpostCore

extension AppServicesImport {
    /// Login providers: `auth/providers.json` (one object keyed by provider), or `auth_providers/<name>.json` in
    /// realm-cli v1 exports; custom user data.
    mutating func importAuth() throws(AppImportError) {
        var providers: [(file: String, provider: [String: JSONValue])] = []
        if export.layout == .legacy {
            for name in export.list("auth_providers") where name.hasSuffix(".json") {
                let file = "auth_providers/\(name)"
                if let provider = try export.object(file) { providers.append((file, provider)) }
            }
        } else if let all = try export.object("auth/providers.json") {
            for key in all.keys.sorted() {
                guard case .object(let provider) = all[key]! else {
                    throw AppImportError(file: "auth/providers.json", "the provider '\(key)' is not an object")
                }
                providers.append(("auth/providers.json: \(key)", provider))
            }
        }
        for (file, provider) in providers {
            try importProvider(provider, file: file)
        }
        try importCustomUserData()
    }

    private mutating func importProvider(_ provider: [String: JSONValue], file: String) throws(AppImportError) {
        guard let type = provider["type"]?.stringValue ?? provider["name"]?.stringValue else {
            throw AppImportError(file: file, "a provider needs a \"type\"")
        }
        let enabled = provider["disabled"]?.boolValue != true
        let config = provider["config"]?.objectValue ?? [:]
        let state = enabled ? "enabled" : "disabled, as in the export"
        switch type {
        case "anon-user":
            auth["anonymous"] = .object(["enabled": .bool(enabled)])
            report.carry(file, "auth.anonymous (\(state))")
        case "api-key":
            auth["api_keys"] = .object(["enabled": .bool(enabled)])
            report.carry(file, "auth.api_keys (\(state))")
        case "local-userpass":
            let autoConfirm = config["autoConfirm"]?.boolValue ?? false
            auth["email_password"] = .object(["enabled": .bool(enabled), "auto_confirm": .bool(autoConfirm)])
            report.carry(file, "auth.email_password (\(state), auto_confirm \(autoConfirm))")
            let mail = ["emailConfirmationUrl", "confirmEmailSubject", "resetPasswordUrl", "resetPasswordSubject"]
                .filter { config[$0]?.stringValue.map { !$0.isEmpty } ?? false }
            if !mail.isEmpty {
                report.leaveOut("\(file): \(mail.joined(separator: ", "))",
                    "Outpost sends no email: confirmation and reset tokens go to the server log, or to a webhook of "
                        + "yours that mails them (auth.email_password.token_webhook_url; docs/server.md)")
            }
            for (flag, name) in [("runConfirmationFunction", "confirmationFunctionName"),
                                 ("runResetFunction", "resetFunctionName")] where config[flag]?.boolValue == true {
                let function = config[name]?.stringValue ?? ""
                report.leaveOut("\(file): \(flag) (\(function))",
                    "Outpost runs the app's functions for clients but does not call them for confirmations and "
                        + "resets; their tokens go to the server log or the token webhook")
            }
        case "custom-token":
            importCustomToken(provider, config: config, enabled: enabled, file: file)
        case "custom-function":
            report.leaveOut(file,
                "Outpost has no custom function authentication provider; Custom JWT (custom-token) is the "
                    + "nearest one")
        case "oauth2-google", "oauth2-apple", "oauth2-facebook":
            report.leaveOut(file,
                "Outpost has no \(type.dropFirst(7).capitalized) login; sign users in with your identity provider and "
                    + "log in to Outpost with its JWT through Custom JWT (auth.custom_token)")
        default:
            report.leaveOut(file, "unknown provider type '\(type)'")
        }
    }

    /// Custom JWT. Its signing keys are secrets, which exports name without their values: they come from `--secret`.
    private mutating func importCustomToken(_ provider: [String: JSONValue], config: [String: JSONValue], enabled: Bool,
                                            file: String)
    {
        var token: [String: JSONValue] = ["enabled": .bool(true)]
        let usesJWK = config["useJWKURI"]?.boolValue == true
        var algorithm = config["signingAlgorithm"]?.stringValue ?? "HS256"
        if usesJWK { algorithm = "RS256" }
        token["signing_algorithm"] = .string(algorithm)
        switch config["audience"] {
        case .string(let audience)? where !audience.isEmpty: token["audience"] = .array([.string(audience)])
        case .array(let audiences)? where !audiences.isEmpty: token["audience"] = .array(audiences)
        default: break
        }
        let fields = (provider["metadata_fields"]?.arrayValue ?? []).compactMap { field -> JSONValue? in
            guard let object = field.objectValue, let name = object["name"]?.stringValue else { return nil }
            var out: [String: JSONValue] = ["name": .string(name)]
            if let fieldName = object["field_name"]?.stringValue, !fieldName.isEmpty { out["field_name"] = .string(fieldName) }
            if let required = object["required"]?.boolValue { out["required"] = .bool(required) }
            return .object(out)
        }
        if !fields.isEmpty { token["metadata_fields"] = .array(fields) }
        let secretNames = (provider["secret_config"]?.objectValue?["signingKeys"]?.arrayValue ?? []).compactMap(\.stringValue)
        if usesJWK {
            guard let uri = config["jwkURI"]?.stringValue, !uri.isEmpty else {
                report.leaveOut(file, "it uses a JWK URI but names none")
                return
            }
            token["jwk_uri"] = .string(uri)
        } else {
            let missing = secretNames.filter { secrets[$0] == nil }
            guard !secretNames.isEmpty, missing.isEmpty else {
                let names = secretNames.isEmpty ? "its signing key" : missing.map { "'\($0)'" }.joined(separator: ", ")
                report.leaveOut(file,
                    "its signing keys are secrets, which exports leave out: run the import again with "
                        + "--secret <name>=<value> for \(names)")
                return
            }
            let values = secretNames.map { secrets[$0]! }
            if algorithm == "RS256" {
                token["public_key"] = .string(values[0])
            } else {
                token["signing_keys"] = .array(values.map(JSONValue.string))
            }
        }
        guard enabled else {
            report.leaveOut(file, "disabled in the export (an Outpost custom_token block is on when present)")
            return
        }
        auth["custom_token"] = .object(token)
        report.carry(file, "auth.custom_token (\(algorithm)\(usesJWK ? ", JWK URI" : ""))")
        if case .array(let audiences)? = token["audience"], audiences.count > 1,
            config["requireAnyAudience"]?.boolValue != true
        {
            report.leaveOut("\(file): requireAnyAudience false",
                "Outpost accepts a token that names any one of the audiences; App Services required all of them")
        }
    }

    /// Custom user data read from a collection: Outpost keeps a user's custom data on the user instead.
    private mutating func importCustomUserData() throws(AppImportError) {
        let (file, config): (String, [String: JSONValue]?) = export.layout == .legacy
            ? ("\(export.rootFile): custom_user_data_config", export.root["custom_user_data_config"]?.objectValue)
            : ("auth/custom_user_data.json", try export.object("auth/custom_user_data.json"))
        guard let config, config["enabled"]?.boolValue == true else { return }
        let collection = [config["database_name"], config["collection_name"]].compactMap { $0?.stringValue }
            .joined(separator: ".")
        report.leaveOut(file,
            "Outpost keeps each user's custom data on the user record (rules read it as %%user.custom_data) and does "
                + "not read it from a collection (\(collection)); rules that use it see no data until it is set")
    }
}
