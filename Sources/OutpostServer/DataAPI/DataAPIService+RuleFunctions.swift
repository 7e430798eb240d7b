import OutpostCore

extension DataAPIService.Request {
    /// Runs the `%function` calls the collection's roles make for these documents and that have no result yet,
    /// up to the pool's width at once, so that evaluating the rules afterwards (synchronously) finds them. A call
    /// that fails has no result: its condition is false (fail closed).
    ///
    /// Writes prepare outside their transaction (a function may read through `context.services`); a document that
    /// changed meanwhile needs calls that have no result, and its write is refused.
    ///
    /// - Throws: ``APIError`` 400 when the request would need more than
    ///   ``DataAPIService/maxRuleFunctionCalls`` calls.
    func prepareFunctions(_ documents: [Document]) async throws {
        guard let results = context.functionResults, !documents.isEmpty else { return }
        var pending: [RuleFunctionCall] = []
        var seen = Set<RuleFunctionCall>()
        for document in documents {
            for call in service.rules.functionCalls(forCollection: collection, document: document, context: context)
            where results[call] == nil && seen.insert(call).inserted {
                pending.append(call)
            }
        }
        guard !pending.isEmpty, let run = service.ruleFunctions else { return }
        guard results.count + pending.count <= DataAPIService.maxRuleFunctionCalls else {
            throw APIError.badRequest("the rules of collection \(DataAPIValidation.quoted(collection)) would call "
                + "functions more than \(DataAPIService.maxRuleFunctionCalls) times for this request; narrow its filter")
        }
        await withTaskGroup(of: (RuleFunctionCall, Value?).self) { group in
            for call in pending { group.addTask { (call, await run(call)) } }
            for await (call, value) in group {
                if let value { results.set(value, for: call) }
            }
        }
    }

    /// Prepares an update's calls: the documents before and after the update, and the document an upsert would
    /// insert.
    func prepareFunctions(updating keys: [Value], with update: DataAPIUpdate, upsertBase: Document?) async throws {
        guard context.functionResults != nil else { return }
        var documents: [Document] = []
        for key in keys {
            guard let before = try await storage.document(appId: appId, collection: collection, primaryKey: key) else {
                continue
            }
            documents.append(before)
            if let after = try? update.apply(to: before) { documents.append(after) }
        }
        if keys.isEmpty, let upsertBase, let document = try? update.apply(to: upsertBase) { documents.append(document) }
        try await prepareFunctions(documents)
    }
}
