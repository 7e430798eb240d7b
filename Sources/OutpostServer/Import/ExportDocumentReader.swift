import Foundation
import OutpostCore

/// Reads the documents of one exported collection, one at a time and in bounded memory whatever the file's size:
/// `mongoexport` output (Extended JSON, canonical or relaxed, one document per line or a JSON array) or a `mongodump`
/// `.bson` file. Each document comes with the file offset just after it, where a resumed import starts.
package struct ExportDocumentReader {
    package enum Format: String, Sendable {
        case jsonLines, jsonArray, bson
    }

    package struct Item {
        /// The document as Extended JSON: the file's own text for JSON (checked to be an object), written from the
        /// BSON for `.bson`. Its Extended JSON values are read by the server (a bad one is reported at `location`).
        package var text: String
        /// Whether the document has a top-level `_id`.
        package var hasId: Bool
        /// Where the document starts, for messages: `line 12` or `document 3 (byte 1024)`.
        package var location: String
        /// The file offset just after the document.
        package var endOffset: Int64

        /// The document in Outpost's model (what the server will store).
        package func document() throws(AppImportError) -> Document {
            guard let json = JSONValue.parse(text) else { throw AppImportError(file: location, "is not valid JSON") }
            do { return try Document(extendedJSON: json, path: "$") } catch {
                throw AppImportError(file: location, error.message)
            }
        }
    }

    /// The longest document accepted (a line of JSON, or a BSON document); a longer one is refused rather than read
    /// whole. MongoDB's own limit is 16 MiB of BSON, which JSON text may exceed.
    package static let maxDocumentBytes = 64 * 1024 * 1024
    static let chunkSize = 1 << 20

    package let path: String
    package let format: Format
    package let fileSize: Int64
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    /// The file offset of `buffer[0]`.
    private var bufferOffset: Int64
    private var atEnd = false
    private var line: Int
    private var documentIndex: Int
    private var arrayStarted: Bool

    /// Opens `path` at `offset` (0, or where an interrupted import stopped); the format is found from the file's name
    /// (`.bson`) or first character (`[`) unless given.
    package init(path: String, format: Format? = nil, offset: Int64 = 0, line: Int = 1, documentIndex: Int = 0)
        throws(AppImportError)
    {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AppImportError(file: path, "cannot be opened for reading")
        }
        self.path = path
        self.handle = handle
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        self.fileSize = size
        if let format {
            self.format = format
        } else if path.hasSuffix(".bson") {
            self.format = .bson
        } else {
            let head = (try? handle.read(upToCount: 4096)) ?? Data()
            self.format = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "[")
                ? .jsonArray : .jsonLines
        }
        do { try handle.seek(toOffset: UInt64(offset)) } catch {
            throw AppImportError(file: path, "cannot be read from byte \(offset): \(error)")
        }
        bufferOffset = offset
        self.line = line
        self.documentIndex = documentIndex
        arrayStarted = offset > 0
    }

    /// The byte offset reading has reached (for progress).
    package var offset: Int64 { bufferOffset + Int64(position) }
    package var currentLine: Int { line }
    package var currentDocumentIndex: Int { documentIndex }

    /// The next document, or nil at the end of the file.
    package mutating func next() throws(AppImportError) -> Item? {
        switch format {
        case .jsonLines: return try nextLine()
        case .jsonArray: return try nextElement()
        case .bson: return try nextBSON()
        }
    }

    // MARK: Buffering

    /// Makes at least `count` bytes available from `position`; false at the end of the file.
    private mutating func fill(_ count: Int) throws(AppImportError) -> Bool {
        while buffer.count - position < count && !atEnd {
            if position > 0 {
                buffer.removeFirst(position)
                bufferOffset += Int64(position)
                position = 0
            }
            let data: Data
            do { data = try handle.read(upToCount: Self.chunkSize) ?? Data() } catch {
                throw AppImportError(file: path, "cannot be read: \(error)")
            }
            if data.isEmpty { atEnd = true } else { buffer.append(contentsOf: data) }
        }
        return buffer.count - position >= count
    }

    private func fail(_ location: String, _ message: String) -> AppImportError {
        AppImportError(file: path, "\(location): \(message)")
    }

    /// A JSON document's text, checked to be one JSON object; its Extended JSON values are the server's to read.
    private func item(_ bytes: ArraySlice<UInt8>, at location: String, endOffset: Int64) throws(AppImportError) -> Item {
        var reader = JSONReader(bytes: Array(bytes))
        guard let json = reader.parseValue() else { throw fail(location, "is not valid JSON") }
        reader.skipSpace()
        guard reader.index == bytes.count else { throw fail(location, "has more than one JSON value") }
        guard case .object(let fields) = json else { throw fail(location, "is \(json.kindDescription), not a document") }
        return Item(text: String(decoding: bytes, as: UTF8.self), hasId: fields["_id"] != nil, location: location,
                    endOffset: endOffset)
    }

    // MARK: One document per line

    private mutating func nextLine() throws(AppImportError) -> Item? {
        while true {
            // Indexes are kept relative to `position`: `fill` moves the buffer.
            var scanned = 0
            var newline: Int?
            while true {
                if let found = buffer[(position + scanned)...].firstIndex(of: 0x0A) {
                    newline = found - position
                    break
                }
                scanned = buffer.count - position
                guard scanned <= Self.maxDocumentBytes else {
                    throw fail("line \(line)", "is longer than \(Self.maxDocumentBytes) bytes")
                }
                if !(try fill(scanned + 1)) { break }
            }
            if newline == nil && buffer.count == position { return nil }
            let length = newline ?? (buffer.count - position)
            let bytes = buffer[position..<(position + length)]
            let startLine = line
            position += min(length + 1, buffer.count - position)
            if newline != nil { line += 1 }
            if bytes.allSatisfy({ [0x20, 0x09, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) { continue }
            documentIndex += 1
            return try item(bytes, at: "line \(startLine)", endOffset: offset)
        }
    }

    // MARK: A JSON array

    private mutating func skipSpaceAndCommas(allowComma: Bool) throws(AppImportError) -> UInt8? {
        while try fill(1) {
            let byte = buffer[position]
            if byte == 0x0A { line += 1 }
            if [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains(byte) || (allowComma && byte == 0x2C) {
                position += 1
                continue
            }
            return byte
        }
        return nil
    }

    private mutating func nextElement() throws(AppImportError) -> Item? {
        if !arrayStarted {
            guard try skipSpaceAndCommas(allowComma: false) == UInt8(ascii: "[") else {
                throw fail("line \(line)", "a JSON array of documents must start with '['")
            }
            position += 1
            arrayStarted = true
        }
        guard let first = try skipSpaceAndCommas(allowComma: true) else {
            throw fail("line \(line)", "the array is not closed with ']'")
        }
        if first == UInt8(ascii: "]") { return nil }
        guard first == UInt8(ascii: "{") else { throw fail("line \(line)", "an element of the array is not a document") }
        // The element's extent: to the brace that closes its first one, strings skipped.
        let startLine = line
        var depth = 0
        var inString = false
        var escaped = false
        var index = position
        while true {
            if index >= buffer.count {
                let consumed = index - position
                guard consumed <= Self.maxDocumentBytes else {
                    throw fail("line \(startLine)", "a document is longer than \(Self.maxDocumentBytes) bytes")
                }
                guard try fill(consumed + 1) else {
                    throw fail("line \(startLine)", "the file ends inside a document")
                }
                index = position + consumed
            }
            let byte = buffer[index]
            index += 1
            if byte == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            if byte == 0x22 { inString = true } else if byte == 0x7B || byte == 0x5B { depth += 1 } else if byte == 0x7D || byte == 0x5D {
                depth -= 1
                if depth == 0 { break }
            }
        }
        let bytes = buffer[position..<index]
        position = index
        documentIndex += 1
        return try item(bytes, at: "line \(startLine)", endOffset: offset)
    }

    // MARK: BSON

    private mutating func nextBSON() throws(AppImportError) -> Item? {
        let location = "document \(documentIndex + 1) (byte \(offset))"
        guard try fill(4) else {
            if buffer.count > position { throw fail(location, "the file ends inside a document") }
            return nil
        }
        let length = Int(buffer[position..<(position + 4)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard length >= 5, length <= Self.maxDocumentBytes else {
            throw fail(location, "a BSON document's length is \(length) bytes")
        }
        guard try fill(length) else { throw fail(location, "the file ends inside a document") }
        let bytes = buffer[position..<(position + length)]
        let document: Document
        do { document = try BSONDocumentDecoder.decode(bytes) } catch {
            throw fail(location, "field '\(error.path)': \(error.message)")
        }
        position += length
        documentIndex += 1
        return Item(text: Value.document(document).extendedJSON.text, hasId: document["_id"] != nil, location: location,
                    endOffset: offset)
    }
}
