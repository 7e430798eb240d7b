import OutpostCore

/// One ``DocumentQuery/Condition`` as an index lookup: the texts its column may hold, text ranges, and whether a
/// missing field (SQL NULL) may match. The column is `pk_key` for `_id` and the field's compact JSON text otherwise
/// (`body -> '$.f'` in SQLite, `(body::json -> 'f')::text` in PostgreSQL), both in byte order.
///
/// The lookup finds every document the condition matches and possibly more; drivers re-check ``DocumentQuery/matches(_:)``.
/// Besides each value's own text it takes every array (`[`…: an element may be equal), every link (`{"$id":`…: a link
/// equals its primary key) and, for numbers, every integral double and Decimal128 (`{"$numberD`…: `5` equals `5.0`).
struct DocumentQueryProbe: Sendable, Equatable {
    /// The field (`_id` for the primary key); a name ``isIndexable(_:)`` accepts.
    var field: String
    var texts: [String]
    var ranges: [Range]
    var matchesMissing: Bool
    /// True for a condition with no values: it matches nothing.
    var matchesNothing: Bool

    /// Texts from `lower` (inclusive) to `upper` (exclusive), compared byte by byte.
    struct Range: Sendable, Equatable {
        var lower: String
        var upper: String
    }

    /// The most texts a probe looks up; a longer `$in` is left to the Swift check (each text is one part of a
    /// compound `SELECT`, which SQLite limits to 500, and one term of an `OR`, whose depth it limits to 1,000).
    static let maxTexts = 100

    static let arrays = Range(lower: "[", upper: "\\")
    static let links = Range(lower: #"{"$id":"#, upper: #"{"$id";"#)
    static let numberObjects = Range(lower: #"{"$numberD"#, upper: #"{"$numberE"#)

    /// Whether a field name may be spliced into SQL and an index name: ASCII letters, digits and `_`, not starting
    /// with a digit, at most 40 bytes (an index name, with its prefix and hash, stays within PostgreSQL's 63).
    static func isIndexable(_ field: String) -> Bool {
        let bytes = field.utf8  // read in place: a lookup checks its fields on every request
        guard let first = bytes.first, bytes.count <= 40, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    /// The probe for a condition, or nil when its field or one of its values cannot be looked up this way (the driver
    /// then checks that condition on the documents the others find). `spacedForms` adds the texts ``spaced(_:)``
    /// gives, which only PostgreSQL's columns may hold.
    init?(_ condition: DocumentQuery.Condition, spacedForms: Bool = true) {
        guard condition.field == "_id" || Self.isIndexable(condition.field) else { return nil }
        field = condition.field
        texts = []
        // A primary key is never an array or a link (storage refuses both as `_id`): a lookup by `_id` is one index
        // seek per value, not also two ranges.
        ranges = field == "_id" ? [] : [Self.arrays, Self.links]
        matchesMissing = false
        matchesNothing = condition.values.isEmpty
        var numeric = false
        for value in condition.values {
            switch value {
            case .null:
                texts.append("null")
                matchesMissing = true
            case .bool, .string:
                texts.append(value.extendedJSONText)
            case .objectId, .uuid, .date:
                let text = PrimaryKeyText.make(value)  // the value's text, an ObjectId's without a buffer
                texts.append(text)
                if spacedForms { texts.append(Self.spaced(text)) }
            case .int(let int):
                numeric = true
                texts.append(value.extendedJSONText)
                if let double = Double(exactly: int) { texts.append(Value.double(double).extendedJSONText) }
            case .double(let double):
                numeric = true
                texts += Self.texts(of: double)
            case .float(let float):
                numeric = true
                texts += Self.texts(of: Double(float))
            case .array:
                break  // only an array can equal an array: `arrays` finds them
            case .decimal128, .data, .document, .link:
                return nil
            }
        }
        guard texts.count <= Self.maxTexts else { return nil }
        if numeric { ranges.append(Self.numberObjects) }
        // A text inside a range is found by the range: the parts stay disjoint, each document found once. (One value
        // gives one or two texts: no set for those.)
        if texts.count > 1 { texts = Array(Set(texts)).sorted() }
        texts.removeAll { text in
            // Every range starts with `[` or `{`: a string's or a number's text is in none.
            guard let first = text.utf8.first, first == UInt8(ascii: "[") || first == UInt8(ascii: "{") else { return false }
            return ranges.contains { !text.utf8.lexicographicallyPrecedes($0.lower.utf8) && text.utf8.lexicographicallyPrecedes($0.upper.utf8) }
        }
    }

    /// The probe that also finds the documents whose column holds `text` (a driver's marker for a body it cannot read a
    /// field of).
    func finding(text: String) -> DocumentQueryProbe {
        var probe = self
        if !matchesNothing, !probe.texts.contains(text) { probe.texts.append(text) }
        return probe
    }

    /// The lookups that together find the condition's candidates, disjoint: each text, each range, and the missing field.
    var arms: [Arm] {
        texts.map(Arm.equal) + ranges.map(Arm.range) + (matchesMissing ? [.missing] : [])
    }

    /// How many ``arms`` there are, without building them.
    var armCount: Int { texts.count + ranges.count + (matchesMissing ? 1 : 0) }

    enum Arm: Sendable, Equatable {
        case equal(String)
        case range(Range)
        case missing
    }

    /// A double's text (a float is stored as a double) and, for an integral one, the equal integer's.
    private static func texts(of double: Double) -> [String] {
        var texts = [Value.double(double).extendedJSONText]
        if let int = Int64(exactly: double) { texts.append(Value.int(int).extendedJSONText) }
        return texts
    }

    /// The text `jsonb` gave a small object (a space after `:` and `,`): PostgreSQL databases whose bodies were
    /// `jsonb` hold documents in that form until they are written again.
    static func spaced(_ compact: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(compact.utf8.count + 8)
        var inString = false
        var escaped = false
        for byte in compact.utf8 {
            out.append(byte)
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: ":") || byte == UInt8(ascii: ",") {
                out.append(UInt8(ascii: " "))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension DocumentQuery {
    /// The probes of the conditions that have one.
    var probes: [DocumentQueryProbe] { probes(spacedForms: true) }

    /// The probes of the conditions that have one; without ``DocumentQueryProbe/spaced(_:)`` texts for a driver
    /// whose columns hold compact JSON only (SQLite).
    func probes(spacedForms: Bool) -> [DocumentQueryProbe] {
        conditions.compactMap { DocumentQueryProbe($0, spacedForms: spacedForms) }
    }
}

extension DocumentQueryProbe {
    /// The name of a field's index: the field and a hash of its bytes, since SQLite's names ignore case and fields
    /// do not (`ownerId`, `ownerid`).
    static func indexName(_ field: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in field.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return "documents_by_\(field)_\(String(repeating: "0", count: 8 - hex.count))\(hex)"
    }
}
