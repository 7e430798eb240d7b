import Foundation

// Descriptions of the types that hold secrets, for logs: swift-service-lifecycle prints each service at trace
// level, and the reflected default printed the admin key and the custom-token signing keys. Secrets show as
// "<redacted>"; the rest stays readable.

extension OutpostServerApplication: CustomStringConvertible {
    public var description: String {
        "OutpostServerApplication(app: \(app.appId), configuration: \(configuration), adminKey: <redacted>)"
    }
}

extension OutpostServerConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "OutpostServerConfiguration(host: \(host), port: \(port), dataDirectory: \(dataDirectory.path), "
            + "appConfigurationFile: \(appConfigurationFile?.path ?? "none"), database: \(resolvedDatabase), "
            + "adminKey: \(adminKey == nil ? "from the data directory" : "<redacted>"), logRetentionDays: \(logRetentionDays), "
            + "requestHeadTimeout: \(requestHeadTimeout), requestBodyTimeout: \(requestBodyTimeout), "
            + "idleTimeout: \(idleTimeout), maxRequestBodySize: \(maxRequestBodySize), "
            + "maxSyncConnectionsPerUser: \(maxSyncConnectionsPerUser))"
    }

    public var debugDescription: String { description }
}

extension AppDefinition: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "AppDefinition(appId: \(appId), sync: \(sync.mode), collections with rules: \(ruleCollectionNames.count), "
            + "customToken: \(auth.customToken.map(\.description) ?? "off"))"
    }

    public var debugDescription: String { description }
}

extension AppDefinition.CustomToken: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        "CustomToken(algorithm: \(algorithm.rawValue), signingKeys: \(signingKeys.count) <redacted>, "
            + "jwkURI: \(jwkURI ?? "none"), audience: \(audience))"
    }

    public var debugDescription: String { description }
}

extension ServerInfo: CustomStringConvertible {
    public var description: String { "ServerInfo(url: \(url), appId: \(appId), adminKey: <redacted>)" }
}
