import Hummingbird
import NIOCore
import OutpostCore

extension Request {
    /// The token of an `Authorization: Bearer <token>` header.
    ///
    /// - Throws: ``AuthError/Code/missingToken`` when there is none.
    func bearerToken() throws(AuthError) -> String {
        guard let header = headers[.authorization] else {
            throw AuthError(.missingToken, "missing 'Authorization: Bearer <token>' header")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw AuthError(.missingToken, "the Authorization header must be 'Bearer <token>'")
        }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The body, at most `limit` bytes. A `Content-Length` over the limit is refused before any of the body is read.
    ///
    /// - Throws: ``APIError`` 413 when the body is larger; 400 when its chunked encoding is broken.
    mutating func body(upTo limit: Int) async throws -> ByteBuffer {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw APIError.bodyTooLarge(limit: limit)
        }
        do {
            return try await collectBody(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge(limit: limit)
        }
    }

    /// The body as a JSON object; an empty body is `{}`.
    ///
    /// - Throws: ``APIError`` 400 when the body is not a JSON object, 413 when it is over `context.maxUploadSize`.
    mutating func jsonObject(context: some RequestContext) async throws -> JSONBody {
        let buffer = try await body(upTo: context.maxUploadSize)
        let text = String(buffer: buffer)
        if text.allSatisfy(\.isWhitespace) { return JSONBody(fields: [:]) }
        guard let json = JSONValue.parse(text) else { throw APIError.badRequest("the request body is not valid JSON") }
        guard case .object(let fields) = json else { throw APIError.badRequest("the request body must be a JSON object") }
        return JSONBody(fields: fields)
    }
}

/// A request's JSON object body.
struct JSONBody {
    var fields: [String: JSONValue]

    /// A required string field. Control characters are refused: no email, password, key or token holds one, and
    /// the drivers would treat them differently (SQLite cut text at U+0000, so `victim@example.com\0junk` matched
    /// the victim; PostgreSQL refuses U+0000 with an error).
    func string(_ key: String) throws(APIError) -> String {
        guard let value = fields[key] else { throw APIError.badRequest("missing field '\(key)'") }
        guard case .string(let s) = value else { throw APIError.badRequest("field '\(key)' must be a string") }
        try Self.checkText(s, what: "field '\(key)'")
        return s
    }

    /// Throws 400 when text holds a control character (U+0000–U+001F, U+007F).
    static func checkText(_ text: String, what: String) throws(APIError) {
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw APIError.badRequest("\(what) must not contain control characters")
        }
    }
}
