import Foundation
import OutpostCore

/// The documents every case uses: small items owned by one user.
enum Workload {
    static func items(count: Int, owner: String) -> [Document] {
        (0..<count).map { i in
            [
                "_id": .objectId(ObjectId.generate()), "ownerId": .string(owner), "itemName": .string("item \(i)"),
                "complexity": .int(Int64(i % 10)),
            ]
        }
    }

    static let appConfiguration = #"""
        {"app_id": "bench-app", "auth": {"anonymous": {"enabled": true}},
         "sync": {"mode": "flexible", "queryable_fields_names": ["complexity", "ownerId"], "development_mode_enabled": true},
         "rules": {"Item": {"roles": [{"name": "owner-read-write", "apply_when": {},
            "document_filters": {"read": {"ownerId": "%%user.id"}, "write": {"ownerId": "%%user.id"}}, "read": true, "write": true}]}}}
        """#
}
