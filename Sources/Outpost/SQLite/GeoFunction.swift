import CSQLite
import Foundation
import OutpostCore
import Synchronization

/// `outpost_geo_within(type, coordinates, shape)`: 1 when a stored GeoJSON-shaped point (its `type` text and its
/// `coordinates` JSON array, longitude first) lies in the shape (`encode(_:)`'s text), else 0.
enum GeoFunction {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "outpost_geo_within", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let argv, let shapePtr = sqlite3_value_text(argv[2]), let region = GeoFunction.region(String(cString: shapePtr))
            else {
                sqlite3_result_int(context, 0)
                return
            }
            let type = sqlite3_value_text(argv[0]).map { String(cString: $0) }
            let coordinates = sqlite3_value_text(argv[1]).map { GeoFunction.numbers(String(cString: $0)) } ?? []
            sqlite3_result_int(context, region.contains(geoJSONType: type, coordinates: coordinates) ? 1 : 0)
        }, nil, nil, nil)
    }

    static func encode(_ shape: GeoShape) -> String {
        String(decoding: (try? JSONEncoder().encode(shape)) ?? Data(), as: UTF8.self)
    }

    /// Regions of recent shapes, so a query builds its region once, not once per row.
    private static let cache = Mutex<[String: GeoRegion]>([:])

    private static func region(_ encoded: String) -> GeoRegion? {
        if let region = cache.withLock({ $0[encoded] }) { return region }
        guard let shape = try? JSONDecoder().decode(GeoShape.self, from: Data(encoded.utf8)),
              let region = try? shape.region()
        else { return nil }
        cache.withLock { regions in
            if regions.count >= 64 { regions.removeAll() }
            regions[encoded] = region
        }
        return region
    }

    /// The numbers of a stored JSON array of doubles (`[12.5, 55.6]`).
    static func numbers(_ json: String) -> [Double] {
        json.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "," || $0 == " " }).compactMap { Double($0) }
    }
}
