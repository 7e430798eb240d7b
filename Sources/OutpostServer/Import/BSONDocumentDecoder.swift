import Foundation
import OutpostCore

/// Reads one BSON document (as `mongodump` writes them, one after another in a `.bson` file) into Outpost's document
/// model. Types Outpost's model has no place for (regular expressions, JavaScript, timestamps, min/max keys, DBPointer)
/// are refused with the field's path, so an import never changes a value silently.
enum BSONDocumentDecoder {
    struct Failure: Error {
        var path: String
        var message: String
    }

    static func decode(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Document {
        var reader = Reader(bytes: bytes, index: bytes.startIndex)
        return try reader.document(path: "")
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var index: Int

        mutating func take(_ count: Int, _ path: String) throws(Failure) -> ArraySlice<UInt8> {
            guard count >= 0, index + count <= bytes.endIndex else {
                throw Failure(path: path, message: "the document ends in the middle of a value")
            }
            defer { index += count }
            return bytes[index..<(index + count)]
        }

        mutating func int32(_ path: String) throws(Failure) -> Int32 {
            let b = try take(4, path)
            return b.reversed().reduce(Int32(0)) { $0 << 8 | Int32($1) }
        }

        mutating func uint64(_ path: String) throws(Failure) -> UInt64 {
            let b = try take(8, path)
            return b.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }

        mutating func cString(_ path: String) throws(Failure) -> String {
            guard let end = bytes[index...].firstIndex(of: 0) else {
                throw Failure(path: path, message: "a field name is not terminated")
            }
            defer { index = end + 1 }
            guard let text = String(validating: bytes[index..<end], as: UTF8.self) else {
                throw Failure(path: path, message: "a field name is not UTF-8")
            }
            return text
        }

        mutating func string(_ path: String) throws(Failure) -> String {
            let length = Int(try int32(path))
            guard length >= 1 else { throw Failure(path: path, message: "a string has a negative length") }
            let b = try take(length, path)
            guard b.last == 0, let text = String(validating: b.dropLast(), as: UTF8.self) else {
                throw Failure(path: path, message: "a string is not terminated UTF-8")
            }
            return text
        }

        mutating func fields(path: String) throws(Failure) -> [(String, Value)] {
            let start = index
            let length = Int(try int32(path))
            guard length >= 5, start + length <= bytes.endIndex else {
                throw Failure(path: path, message: "a document's length (\(length)) does not fit the data")
            }
            let end = start + length - 1
            var out: [(String, Value)] = []
            while index < end {
                let type = try take(1, path).first!
                let name = try cString(path)
                let fieldPath = path.isEmpty ? name : "\(path).\(name)"
                out.append((name, try value(type: type, path: fieldPath)))
            }
            guard index == end, try take(1, path).first == 0 else {
                throw Failure(path: path, message: "a document does not end where its length says")
            }
            return out
        }

        mutating func document(path: String) throws(Failure) -> Document {
            var document = Document()
            for (name, value) in try fields(path: path) { document.fields[name] = value }
            return document
        }

        mutating func value(type: UInt8, path: String) throws(Failure) -> Value {
            switch type {
            case 0x01: return .double(Double(bitPattern: try uint64(path)))
            case 0x02: return .string(try string(path))
            case 0x03: return .document(try document(path: path))
            case 0x04: return .array(try fields(path: path).map(\.1))
            case 0x05:
                let length = Int(try int32(path))
                let subtype = try take(1, path).first!
                let data = Data(try take(length, path))
                if subtype == 0x04 {
                    guard data.count == 16 else { throw Failure(path: path, message: "a UUID is not 16 bytes") }
                    let b = Array(data)
                    return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                                             b[12], b[13], b[14], b[15])))
                }
                return .data(data)
            case 0x06, 0x0A: return .null  // undefined (deprecated) and null
            case 0x07:
                do { return .objectId(try ObjectId(bytes: try take(12, path))) } catch {
                    throw Failure(path: path, message: "an ObjectId is not 12 bytes")
                }
            case 0x08: return .bool(try take(1, path).first! != 0)
            case 0x09:
                let milliseconds = Int64(bitPattern: try uint64(path))
                return .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            case 0x10: return .int(Int64(try int32(path)))
            case 0x12: return .int(Int64(bitPattern: try uint64(path)))
            case 0x13:
                let low = try uint64(path)
                let high = try uint64(path)
                return .decimal128(Decimal128(low: low, high: high))
            default:
                let names: [UInt8: String] = [0x0B: "a regular expression", 0x0C: "a DBPointer", 0x0D: "JavaScript code",
                                              0x0E: "a symbol", 0x0F: "JavaScript code with scope", 0x11: "a timestamp",
                                              0xFF: "MinKey", 0x7F: "MaxKey"]
                throw Failure(path: path, message: "holds \(names[type] ?? "BSON type 0x\(String(type, radix: 16))"), "
                    + "which Outpost's documents cannot hold")
            }
        }
    }
}
