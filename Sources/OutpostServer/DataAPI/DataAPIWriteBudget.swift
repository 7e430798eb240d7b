import OutpostCore

/// What one Data API write request may write (``AppDefinition/DataAPI``): a number of documents and a number of
/// bytes of their Extended JSON, which the history changeset holds too. Documents are counted before they are
/// loaded and bytes as each new document is made, so a request over the budget stops holding at most the budget
/// (one `$push` to every document of a collection once took gigabytes before anything was refused).
struct DataAPIWriteBudget: Sendable {
    let maxDocuments: Int
    let maxBytes: Int
    private(set) var bytes = 0

    init(_ settings: AppDefinition.DataAPI) {
        maxDocuments = settings.maxDocumentsPerWrite
        maxBytes = settings.maxWriteBytes
    }

    /// Throws 400 `tooManyDocuments` when a request would write more than ``maxDocuments`` documents.
    func admit(documents count: Int, _ verb: String, collection: String) throws(APIError) {
        guard count > maxDocuments else { return }
        throw APIError(
            status: .badRequest, errorCode: "LimitExceeded", code: "tooManyDocuments",
            message: "the request would \(verb) \(count) documents in collection \(DataAPIValidation.quoted(collection)), "
                + "more than the limit of \(maxDocuments) per request (data_api.max_documents_per_write); "
                + "narrow the filter or split the request")
    }

    /// Counts a document's text; throws 400 `writeTooLarge` once the request's documents exceed ``maxBytes``.
    mutating func spend(_ text: String, collection: String) throws(APIError) {
        bytes += text.utf8.count
        guard bytes > maxBytes else { return }
        throw APIError(
            status: .badRequest, errorCode: "LimitExceeded", code: "writeTooLarge",
            message: "the request would write more than \(maxBytes) bytes of documents in collection "
                + "\(DataAPIValidation.quoted(collection)), the limit per request (data_api.max_write_bytes); "
                + "nothing was written")
    }
}
