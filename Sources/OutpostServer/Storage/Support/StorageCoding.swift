import Foundation
import OutpostCore

/// The JSON bodies of stored records (users, sessions, API keys, changesets, log records): `Codable` through
/// Foundation's JSON coders. Dates keep their full precision (seconds as a JSON number); documents and values
/// inside are Extended JSON through their own `Codable` conformances.
package enum StorageCoding {
    package static func encode<T: Encodable>(_ value: T, what: String) throws -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StorageError(.invalidDocument, "could not encode \(what) as JSON", underlying: error)
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, from text: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StorageError(.database, "a stored \(what) is not valid JSON for its type", underlying: error)
        }
    }

    /// Seconds since 1970, the value of the indexed time columns.
    package static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    /// Reads a stored document's Extended JSON text.
    package static func decodeDocument(_ body: String) throws -> Document {
        do {
            return try Document(extendedJSONText: body)
        } catch {
            throw StorageError(.database, "a stored document is not valid Extended JSON", underlying: error)
        }
    }

    /// Reads a stored value's Extended JSON text.
    package static func decodeValue(_ text: String, what: String) throws -> Value {
        guard let json = JSONValue.parse(text) else {
            throw StorageError(.database, "a stored \(what) is not valid JSON")
        }
        do {
            return try Value(extendedJSON: json)
        } catch {
            throw StorageError(.database, "a stored \(what) is not valid Extended JSON", underlying: error)
        }
    }
}
