import Foundation
import Hummingbird

/// The query parameters of the admin API's audit search and export (`user`, `activity`, `type`, `since`, `until`,
/// `class` with `pk`, `cursor`, `limit`), checked: a bad one is a 400 that names it.
///
/// Every text is at most ``AuditExtractor/maxIndexedBytes`` (what the index holds; longer texts could never match, and
/// a bound keeps a request's work bounded) and free of control characters, as the admin API's other texts.
struct AuditSearchParameters {
    var search: AuditSearch
    /// The page size: `limit` (default 50), capped at ``maxLimit``.
    var limit: Int

    static let defaultLimit = 50
    static let maxLimit = 500

    init(_ request: Request) throws(APIError) {
        let query = request.uri.queryParameters
        func text(_ name: String) throws(APIError) -> String? {
            guard let value = query.get(name), !value.isEmpty else { return nil }
            guard value.utf8.count <= AuditExtractor.maxIndexedBytes else {
                throw APIError.badRequest("'\(name)' may be at most \(AuditExtractor.maxIndexedBytes) bytes long")
            }
            try JSONBody.checkText(value, what: "'\(name)'")
            return value
        }
        func time(_ name: String) throws(APIError) -> Int64? {
            try text(name).map { value throws(APIError) in try AdminRoutes.parseDate(value, name).millisecondsSince1970 }
        }
        search = AuditSearch(
            user: try text("user"), activity: try text("activity"), eventType: try text("type"), since: try time("since"),
            until: try time("until"))
        if let since = search.since, let until = search.until, since > until {
            throw APIError.badRequest("'since' must not be after 'until'")
        }
        switch (try text("class"), try text("pk")) {
        case (let className?, let key?): search.object = AuditObjectKey(className: className, primaryKey: key)
        case (nil, nil): break
        case (nil, _?): throw APIError.badRequest("'pk' needs 'class': an object is searched by its class and primary key")
        case (_?, nil): throw APIError.badRequest("'class' needs 'pk': an object is searched by its class and primary key")
        }
        if let cursor = try text("cursor") {
            guard let position = Self.cursor(from: cursor) else {
                throw APIError.badRequest("'cursor' is not a cursor this API gave (pass 'next_cursor' as it is)")
            }
            search.after = position
        }
        limit = Self.defaultLimit
        if let value = query.get("limit") {
            guard let n = Int(value), n > 0 else { throw APIError.badRequest("'limit' must be a positive integer") }
            limit = min(n, Self.maxLimit)
        }
    }

    /// The opaque cursor of a position: base64url (no padding) of `<timestamp ms>:<event id>`.
    static func cursorText(_ cursor: AuditSearch.Cursor) -> String {
        Data("\(cursor.timestamp):\(cursor.eventId)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func cursor(from text: String) -> AuditSearch.Cursor? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let timestamp = Int64(parts[0]), parts[1].utf8.count == 24,
            parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return AuditSearch.Cursor(timestamp: timestamp, eventId: String(parts[1]))
    }
}
