import Foundation
import OutpostCore

/// Reading upload messages (the server's first step of ingest): the direct reader (`UploadMessageReader`) against
/// the general decoder (`ClientMessage(text:)`, a `JSONValue` tree first), on the same texts in the same run. The
/// texts are what the sync client sends for the upload benchmark: messages of one changeset of 1,000 creates of
/// `{_id, n, name}`.
enum UploadReadBenchmark {
    static func run(objects: Int) async throws -> (direct: Double, general: Double) {
        var texts: [String] = []
        var n = 0
        while n < objects {
            let instructions = (0..<min(1_000, objects - n)).map { i -> SyncInstruction in
                let id = Value.objectId(.generate())
                return .create(className: "BenchItem", primaryKey: id,
                               fields: ["_id": id, "n": .int(Int64(n + i)), "name": .string("object \(n + i)")])
            }
            n += instructions.count
            texts.append(ClientMessage.upload(session: 1, changesets: [
                UploadChangeset(clientVersion: Int64(texts.count + 1), lastServerVersion: 0, timestamp: 1_700_000_000_000,
                                instructions: instructions),
            ]).text)
        }
        var sink = 0
        let general = try await Stats.seconds {
            for text in texts {
                guard case .upload(_, let changesets) = try ClientMessage(text: text) else { fatalError("not an upload") }
                sink &+= changesets[0].instructions.count
            }
        }
        let direct = try await Stats.seconds {
            for text in texts {
                guard case .upload(_, let changesets)? = UploadMessageReader.message(text) else { fatalError("declined") }
                sink &+= changesets[0].instructions.count
            }
        }
        precondition(sink == 2 * objects)
        return (direct, general)
    }
}
