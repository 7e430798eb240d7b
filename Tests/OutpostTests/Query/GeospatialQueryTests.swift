import Foundation
import Outpost
import OutpostTesting
import Testing

final class GeoLocation: EmbeddedObject {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

final class GeoPlace: Object {
    @Persisted var name: String
    @Persisted var location: GeoLocation?
}

final class GeoNoType: EmbeddedObject {
    @Persisted var coordinates: List<Double>
}

final class GeoTopLevel: Object {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"
}

final class GeoOddPlace: Object {
    @Persisted var untyped: GeoNoType?
    @Persisted var topLevel: GeoTopLevel?
}

/// `geoWithin` on embedded GeoJSON-shaped points (Realm's Geospatial API), through the type-safe builder, `IN %@`
/// with a shape argument and the query language's `GEOWITHIN` literals.
@Suite struct GeospatialQueryTests {
    let dir = TemporaryDirectory()

    private func realm() throws -> Realm {
        let realm = try Realm(configuration: dir.configuration(objectTypes: [GeoPlace.self, GeoLocation.self, GeoOddPlace.self, GeoNoType.self, GeoTopLevel.self]))
        if realm.objects(GeoPlace.self).isEmpty {
            try realm.write {
                for (name, location) in [("Diana", GeoLocation(40.7128, -74.0060)), ("Maria", GeoLocation(55.6761, 12.5683)),
                                         ("Tomas", GeoLocation(55.6280, 12.0826)), ("Alba", GeoLocation(-76, -76)), ("Manuela", nil)] {
                    let place = GeoPlace()
                    place.name = name
                    place.location = location
                    realm.add(place)
                }
            }
        }
        return realm
    }

    private func names<U: RLMGeospatial>(_ realm: Realm, _ shape: U) -> [String] {
        let built = realm.objects(GeoPlace.self).where { $0.location.geoWithin(shape) }.map(\.name).sorted()
        let argument = realm.objects(GeoPlace.self).filter("location IN %@", shape).map(\.name).sorted()
        let literal = realm.objects(GeoPlace.self).filter("location GEOWITHIN \(shape._geoShape.queryText)").map(\.name).sorted()
        #expect(built == argument)
        #expect(built == literal)
        return built
    }

    @Test func valuesValidateAsRealmsDo() throws {
        #expect(GeoPoint(latitude: 90, longitude: -180) != nil)
        #expect(GeoPoint(latitude: 90.000000001, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: 0, altitude: -1) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(GeoBox(bottomLeft: (-91, 0), topRight: (0, 0)) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)]) != nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (3, 3)]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 0), (0, 0)], holes: [(0, 0), (1, 1), (0, 0)]) == nil)
        #expect(GeoCircle(center: (0, 70), radiusInRadians: -1) == nil)
        #expect(GeoCircle(center: (0, 70), radiusInRadians: .nan) == nil)
        #expect(Distance.kilometers(-1) == nil && Distance.degrees(.nan) == nil)
        #expect(abs(Distance.kilometers(40075)!.radians - 2 * .pi) < 2 * .pi * 0.0001)
        #expect(abs(Distance.miles(24901)!.asMiles() - 24901) < 0.01)
        #expect(Distance.degrees(180)!.asDegrees() == 180)
        #expect(GeoCircle(center: (55, 12), radiusInRadians: 1) == GeoCircle(center: (55, 12), radiusInRadians: 1))
        #expect(GeoCircle(center: (55, 12), radiusInRadians: 1) != GeoCircle(center: (55, 13), radiusInRadians: 1))
        #expect(GeoBox(bottomLeft: (1, 1), topRight: (0, 0)) != GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))
    }

    @Test func boxesPolygonsAndCirclesFindThePlacesInThem() throws {
        let realm = try realm()
        #expect(names(realm, GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!) == ["Maria"])
        #expect(names(realm, GeoBox(bottomLeft: (55.6279, 12.0825), topRight: (55.6762, 12.5684))!) == ["Maria", "Tomas"])
        #expect(names(realm, GeoBox(bottomLeft: (0, -75), topRight: (60, 15))!) == ["Diana", "Maria", "Tomas"])
        #expect(names(realm, GeoPolygon(outerRing: [(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)])!) == ["Tomas"])
        #expect(names(realm, GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                                        holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)]])!)
            == ["Alba", "Maria", "Tomas"])
        #expect(names(realm, GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)!) == ["Maria"])
        #expect(names(realm, GeoCircle(center: (55.67, 12.56), radius: .kilometers(100)!)!) == ["Maria", "Tomas"])
        #expect(names(realm, GeoCircle(center: (45, -20), radius: .kilometers(5000)!)!) == ["Diana", "Maria", "Tomas"])
    }

    @Test func onlyGeoJSONPointsMatch() throws {
        let realm = try realm()
        let box = GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!
        try realm.write { realm.objects(GeoPlace.self).forEach { $0.location?.type = "Polygon" } }
        #expect(realm.objects(GeoPlace.self).where { $0.location.geoWithin(box) }.isEmpty)
    }

    @Test func wrongShapesAndShapesS2RefusesAreQueryErrors() throws {
        let realm = try realm()
        let circle = GeoCircle(center: (0, 0), radiusInRadians: 10)!
        let odd = realm.objects(GeoOddPlace.self)
        #expect(throws: QueryError.self) { try odd.filter(checked: "untyped IN %@", [circle]) }
        do {
            _ = try odd.filter(checked: "untyped GEOWITHIN geoCircle([0, 0], 10)", [])
            Issue.record("expected a QueryError")
        } catch let error as QueryError {
            #expect(error.message == "Query 'untyped GEOWITHIN GeoCircle([0, 0, 0], 10)' links to data in the wrong format for a geoWithin query")
        }
        do {
            _ = try odd.filter(checked: "topLevel IN %@", [circle])
            Issue.record("expected a QueryError")
        } catch let error as QueryError {
            #expect(error.message == "A GEOWITHIN query can only operate on a link to an embedded class but 'GeoTopLevel' is at the top level")
        }
        let holeOutside = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)], holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]])!
        do {
            _ = try realm.objects(GeoPlace.self).filter(checked: "location IN %@", [holeOutside])
            Issue.record("expected a QueryError")
        } catch let error as QueryError {
            #expect(error.message.hasSuffix("'Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring"))
        }
        let (format, arguments) = (Query<GeoPlace>._constructForTesting().location.geoWithin(circle))._constructPredicate()
        #expect(format == "(location IN %@)")
        #expect(arguments.first as? GeoCircle == circle)
    }
}
