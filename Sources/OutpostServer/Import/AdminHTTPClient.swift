import Foundation
import OutpostCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests to a running server's admin API for one collection (`/api/admin/v1/collections/<name>/…`), as
/// `import-data` and `export-data` make them: the admin key in its header, a timeout, and a refusal turned into an
/// error naming `file` and the server's message.
struct AdminHTTPClient {
    let server: URL
    let adminKey: String
    let collection: String
    /// The file the import or export is about, for errors.
    let file: String
    var timeout: TimeInterval = 120

    /// A JSON answer's status and body text.
    func send(_ method: String, _ action: String, query: String? = nil, body: Data? = nil) async throws
        -> (status: Int, text: String)
    {
        let escaped = collection.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? collection
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let address = "\(base)/api/admin/v1/collections/\(escaped)/\(action)" + (query.map { "?\($0)" } ?? "")
        guard let url = URL(string: address) else { throw AppImportError(file: file, "'\(address)' is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue(adminKey, forHTTPHeaderField: "X-Admin-Key")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The server's error message in a refusal's body, or the body's start.
    static func message(_ text: String) -> String {
        JSONValue.parse(text)?.objectValue?["error"]?.stringValue ?? String(text.prefix(500))
    }
}
