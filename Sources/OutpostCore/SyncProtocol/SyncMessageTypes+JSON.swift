extension DownloadCursor {
    package var json: JSONValue {
        var o: [String: JSONValue] = ["serverVersion": .int(serverVersion), "clientVersion": .int(clientVersion)]
        if let salt { o["salt"] = .int(salt) }
        return .object(o)
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        self.init(serverVersion: try r.version("serverVersion"), clientVersion: try r.version("clientVersion"),
                  salt: r.has("salt") ? try r.version("salt") : nil)
    }
}

extension SubscriptionQuery {
    package var json: JSONValue {
        .object(["version": .int(version), "queries": .object(queries.mapValues { .string($0) })])
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        self.init(version: try r.version("version"), queries: try r.stringMap("queries"))
    }
}

extension UploadChangeset {
    package var json: JSONValue {
        .object([
            "clientVersion": .int(clientVersion), "lastServerVersion": .int(lastServerVersion),
            "timestamp": .int(timestamp), "instructions": .array(instructions.map(\.json)),
        ])
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        let items = try r.array("instructions")
        var instructions: [SyncInstruction] = []
        instructions.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            instructions.append(try SyncInstruction(json: item, path: "\(path).instructions[\(i)]"))
        }
        let clientVersion = try r.version("clientVersion")
        guard clientVersion > 0 else { throw r.error("client versions start at 1", key: "clientVersion") }
        self.init(clientVersion: clientVersion, lastServerVersion: try r.version("lastServerVersion"),
                  timestamp: try r.int("timestamp"), instructions: instructions)
    }
}

extension DownloadChangeset {
    package var json: JSONValue {
        .object([
            "serverVersion": .int(serverVersion), "originFileIdent": .int(originFileIdent),
            "originClientVersion": .int(originClientVersion), "timestamp": .int(timestamp),
            "instructions": .array(instructions.map(\.json)),
        ])
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        let items = try r.array("instructions")
        var instructions: [DownloadInstruction] = []
        for (i, item) in items.enumerated() {
            instructions.append(try DownloadInstruction(json: item, path: "\(path).instructions[\(i)]"))
        }
        self.init(serverVersion: try r.version("serverVersion"), originFileIdent: try r.version("originFileIdent"),
                  originClientVersion: try r.version("originClientVersion"), timestamp: try r.int("timestamp"),
                  instructions: instructions)
    }
}

extension RejectedUpdate {
    package var json: JSONValue {
        .object(["table": .string(table), "pk": primaryKey.extendedJSON, "reason": .string(reason)])
    }

    package init(json: JSONValue, path: String) throws(SyncProtocolError) {
        let r = try JSONFields(json, path: path)
        self.init(table: try r.string("table"), primaryKey: try r.value("pk"), reason: try r.string("reason"))
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}
