import Foundation

/// A point on the globe in degrees (altitude is carried but never used in calculations, as in Realm).
public struct GeoVertex: Hashable, Sendable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double

    public init(latitude: Double, longitude: Double, altitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// realm-core's text of a point: `[longitude, latitude, altitude]`, numbers as C's `%g`.
    var coreText: String { "[\(Self.g(longitude)), \(Self.g(latitude)), \(Self.g(altitude))]" }

    static func g(_ value: Double) -> String { String(format: "%g", value) }
}

/// The area of a `GEOWITHIN` query: a box, a polygon with holes or a circle, on the sphere (edges are great-circle
/// arcs and a ring is the smaller of the two areas it bounds, as in realm-core, which uses S2).
///
/// The query language writes them `geoBox([lon, lat], [lon, lat])`, `geoPolygon({[lon, lat], …}, {…})` and
/// `geoCircle([lon, lat], radians)`: longitude first, as in GeoJSON.
public enum GeoShape: Hashable, Sendable, Codable, CustomStringConvertible {
    case box(bottomLeft: GeoVertex, topRight: GeoVertex)
    /// The outer ring, then the holes; each ring closed (its last point equals its first).
    case polygon(rings: [[GeoVertex]])
    case circle(center: GeoVertex, radians: Double)

    /// realm-core's text, used in its error messages: `GeoCircle([0, 0, 0], 10)`.
    public var description: String {
        switch self {
        case .box(let lo, let hi): "GeoBox(\(lo.coreText), \(hi.coreText))"
        case .polygon(let rings):
            "GeoPolygon(" + rings.map { "{" + $0.map(\.coreText).joined(separator: ", ") + "}" }.joined(separator: ", ") + ")"
        case .circle(let center, let radians): "GeoCircle(\(center.coreText), \(GeoVertex.g(radians)))"
        }
    }

    /// The query-language literal, which the parser reads back.
    public var queryText: String {
        func point(_ v: GeoVertex) -> String { "[\(v.longitude), \(v.latitude)]" }
        switch self {
        case .box(let lo, let hi): return "geoBox(\(point(lo)), \(point(hi)))"
        case .polygon(let rings):
            return "geoPolygon(" + rings.map { "{" + $0.map(point).joined(separator: ", ") + "}" }.joined(separator: ", ") + ")"
        case .circle(let center, let radians): return "geoCircle(\(point(center)), \(radians))"
        }
    }

    /// The region to test points against; throws realm-core's texts for a polygon S2 would refuse.
    public func region() throws(QueryError) -> GeoRegion {
        do {
            return try GeoRegion(self)
        } catch let reason as GeoRegion.Invalid {
            throw QueryError(.invalidArgument,
                "Invalid region in GEOWITHIN query for parameter '\(description)': '\(reason.message)")
        } catch {
            throw QueryError(.invalidArgument, "\(error)")
        }
    }
}
