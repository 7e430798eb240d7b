import Foundation

/// Called with the inserted document's `_id` or the error.
public typealias MongoInsertBlock = @Sendable (Result<AnyBSON, Error>) -> Void
/// Called with the inserted documents' `_id`s or the error.
public typealias MongoInsertManyBlock = @Sendable (Result<[AnyBSON], Error>) -> Void
/// Called with the found documents or the error.
public typealias MongoFindBlock = @Sendable (Result<[Document], Error>) -> Void
/// Called with the found document (nil when none matched) or the error.
public typealias MongoFindOneBlock = @Sendable (Result<Document?, Error>) -> Void
/// Called with a count (matched or deleted documents) or the error.
public typealias MongoCountBlock = @Sendable (Result<Int, Error>) -> Void
/// Called with the update's outcome or the error.
public typealias MongoUpdateBlock = @Sendable (Result<UpdateResult, Error>) -> Void

/// The completion-handler forms of ``MongoCollection``, as in Realm Swift. Completions run on an arbitrary thread.
extension MongoCollection {
    private func run<T: Sendable>(
        _ completion: @escaping @Sendable (Result<T, Error>) -> Void, _ body: @escaping @Sendable () async throws -> T
    ) {
        Task {
            do {
                completion(.success(try await body()))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Inserts a document (see ``insertOne(_:)``).
    @preconcurrency
    public func insertOne(_ document: Document, _ completion: @escaping MongoInsertBlock) {
        run(completion) { try await self.insertOne(document) }
    }

    /// Inserts documents (see ``insertMany(_:)``).
    @preconcurrency
    public func insertMany(_ documents: [Document], _ completion: @escaping MongoInsertManyBlock) {
        run(completion) { try await self.insertMany(documents) }
    }

    /// Finds documents (see ``find(filter:options:)``).
    @preconcurrency
    public func find(filter: Document, options: FindOptions = FindOptions(), _ completion: @escaping MongoFindBlock) {
        do {
            let fields = try findFields(filter, options, one: false)
            run(completion) { try await self.find(fields: fields) }
        } catch {
            completion(.failure(error))
        }
    }

    /// Finds one document (see ``findOneDocument(filter:options:)``).
    @preconcurrency
    public func findOneDocument(
        filter: Document, options: FindOptions = FindOptions(), _ completion: @escaping MongoFindOneBlock
    ) {
        do {
            let fields = try findFields(filter, options, one: true)
            run(completion) { try await self.findOne(fields: fields) }
        } catch {
            completion(.failure(error))
        }
    }

    /// Runs an aggregation pipeline (see ``aggregate(pipeline:)``).
    @preconcurrency
    public func aggregate(pipeline: [Document], _ completion: @escaping MongoFindBlock) {
        run(completion) { try await self.aggregate(pipeline: pipeline) }
    }

    /// Counts documents (see ``count(filter:limit:)``).
    @preconcurrency
    public func count(filter: Document, limit: Int? = nil, _ completion: @escaping MongoCountBlock) {
        run(completion) { try await self.count(filter: filter, limit: limit) }
    }

    /// Deletes one document (see ``deleteOneDocument(filter:)``).
    @preconcurrency
    public func deleteOneDocument(filter: Document, _ completion: @escaping MongoCountBlock) {
        run(completion) { try await self.deleteOneDocument(filter: filter) }
    }

    /// Deletes documents (see ``deleteManyDocuments(filter:)``).
    @preconcurrency
    public func deleteManyDocuments(filter: Document, _ completion: @escaping MongoCountBlock) {
        run(completion) { try await self.deleteManyDocuments(filter: filter) }
    }

    /// Updates one document (see ``updateOneDocument(filter:update:upsert:)``).
    @preconcurrency
    public func updateOneDocument(
        filter: Document, update: Document, upsert: Bool = false, _ completion: @escaping MongoUpdateBlock
    ) {
        run(completion) { try await self.updateOneDocument(filter: filter, update: update, upsert: upsert) }
    }

    /// Updates documents (see ``updateManyDocuments(filter:update:upsert:)``).
    @preconcurrency
    public func updateManyDocuments(
        filter: Document, update: Document, upsert: Bool = false, _ completion: @escaping MongoUpdateBlock
    ) {
        run(completion) { try await self.updateManyDocuments(filter: filter, update: update, upsert: upsert) }
    }
}
