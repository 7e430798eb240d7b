import Foundation
import OutpostCore
import Testing

/// `GEOWITHIN` in the query language: parsing, printing, evaluation on GeoJSON-shaped documents (the server's
/// evaluator) and the shapes realm-core (S2) refuses, with its texts.
@Suite struct GeoWithinTests {
    private func point(_ lat: Double, _ lon: Double, type: String = "Point") -> Document {
        ["location": .document(["type": .string(type), "coordinates": .array([.double(lon), .double(lat)])])]
    }

    private let copenhagen = (55.6761, 12.5683)
    private let roskilde = (55.6280, 12.0826)
    private let newYork = (40.7128, -74.0060)
    private let antarctic = (-76.0, -76.0)

    private func matches(_ text: String, _ lat: Double, _ lon: Double, type: String = "Point") throws -> Bool {
        try QueryEvaluator().matches(QueryParser.parsePredicate(text), point(lat, lon, type: type))
    }

    @Test func parsesAndPrintsTheShapes() throws {
        for text in [
            "location GEOWITHIN geoBox([12.0, 55.0], [13.0, 56.0])",
            "location GEOWITHIN geoCircle([12.56, 55.67], 0.001)",
            "location GEOWITHIN geoPolygon({[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]}, {[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.1]})",
        ] {
            let predicate = try QueryParser.parsePredicate(text)
            #expect(predicate.description == text)
            #expect(try QueryParser.parsePredicate(predicate.description) == predicate)
        }
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("location GEOWITHIN 3") }
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("location == geoCircle([1, 2], 3)") }
        #expect(throws: QueryError.self) { try QueryParser.parsePredicate("location GEOWITHIN geoCircle([1], 3)") }
    }

    @Test func boxesCirclesAndPolygonsWithHoles() throws {
        let box = "location GEOWITHIN geoBox([12.0825, 55.6279], [12.5684, 55.6762])"
        #expect(try matches(box, copenhagen.0, copenhagen.1))
        #expect(try matches(box, roskilde.0, roskilde.1))
        #expect(try !matches(box, newYork.0, newYork.1))
        // A point that is not GeoJSON "Point" never matches (any case of "point" does).
        #expect(try !matches(box, copenhagen.0, copenhagen.1, type: "Polygon"))
        #expect(try matches(box, copenhagen.0, copenhagen.1, type: "point"))

        let circle = "location GEOWITHIN geoCircle([12.56, 55.67], 0.001)"  // about 6.4 km
        #expect(try matches(circle, copenhagen.0, copenhagen.1))
        #expect(try !matches(circle, roskilde.0, roskilde.1))  // about 30 km away

        // A large ring: either orientation bounds the same (smaller) area.
        let ring = "{[-75.5175781, 40.0096192], [20.0, 60.0], [20.0, 20.0], [-75.5175781, -75.5175781], [-75.5175781, 40.0096192]}"
        let reversed = "{[-75.5175781, 40.0096192], [-75.5175781, -75.5175781], [20.0, 20.0], [20.0, 60.0], [-75.5175781, 40.0096192]}"
        for r in [ring, reversed] {
            let polygon = "location GEOWITHIN geoPolygon(\(r))"
            #expect(try matches(polygon, newYork.0, newYork.1))
            #expect(try matches(polygon, copenhagen.0, copenhagen.1))
            #expect(try !matches(polygon, antarctic.0, antarctic.1))
        }
        let withHole = "location GEOWITHIN geoPolygon({[-80.0, 50.0], [22.0, 62.0], [22.0, 22.0], [-80.0, -80.0], [-80.0, 50.0]}, "
            + "{[-75.0, 40.7129], [-74.0, 40.7129], [-74.0, 40.7126], [-75.0, 40.7129]})"
        #expect(try !matches(withHole, newYork.0, newYork.1))
        #expect(try matches(withHole, copenhagen.0, copenhagen.1))
        #expect(try matches(withHole, antarctic.0, antarctic.1))
    }

    @Test func shapesS2RefusesGiveRealmsTexts() throws {
        func reason(_ shape: GeoShape) -> String {
            do {
                _ = try shape.region()
                return ""
            } catch {
                return error.message
            }
        }
        func v(_ lat: Double, _ lon: Double) -> GeoVertex { GeoVertex(latitude: lat, longitude: lon) }
        let square = [v(0, 0), v(1, 0), v(1, 1), v(0, 1), v(0, 0)]
        #expect(reason(.polygon(rings: [square, [v(2, 2), v(3, 2), v(3, 3), v(2, 3), v(2, 2)]])) == "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0], [0, 0, 0]}, {[2, 2, 0], [2, 3, 0], [3, 3, 0], [3, 2, 0], [2, 2, 0]})': 'Secondary ring 1 not contained by first exterior ring - secondary rings must be holes in the first ring")
        #expect(reason(.polygon(rings: [[v(50, -50), v(55, 55), v(-50, 50), v(70, -25), v(50, -50)]])) == "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[-50, 50, 0], [55, 55, 0], [50, -50, 0], [-25, 70, 0], [-50, 50, 0]})': 'Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations in degrees: [50.0000000, -50.0000000]-[55.0000000, 55.0000000] and [-50.0000000, 50.0000000]-[70.0000000, -25.0000000]''")
        let outer = [v(50, -80), v(60, 20), v(20, 20), v(-80, -80), v(50, -80)]
        let sharing = [v(40.0096192, -75.5175781), v(60, 20), v(20, 20), v(-75.5175781, -75.5175781), v(40.0096192, -75.5175781)]
        #expect(reason(.polygon(rings: [outer, sharing])).hasSuffix("'Polygon isn't valid: 'Duplicate edge: ring 1, edge 1 and ring 0, edge 1''"))
        let bigger = [v(50, -80), v(62, 22), v(22, 22), v(-80, -80), v(50, -80)]
        let hole = [v(45, -77), v(61, 21), v(21, 21), v(-77, -77), v(45, -77)]
        let nested = [v(40.0096192, -75.5175780), v(60, 20), v(20, 20), v(-75.5175781, -75.5175781), v(40.0096192, -75.5175780)]
        #expect(reason(.polygon(rings: [bigger, hole, nested])).hasSuffix("'Polygon interior rings cannot be nested: 2"))
        #expect(reason(.polygon(rings: [[v(0, 0), v(1, 1), v(0, 0), v(0, 0)]])).contains("must have at least 3 different vertices"))
        #expect(reason(.circle(center: v(0, 0), radians: -1)).hasSuffix("'The radius of a circle must be a non-negative number"))
        #expect(reason(.box(bottomLeft: v(0, 0), topRight: v(1, 1))) == "")
    }
}
