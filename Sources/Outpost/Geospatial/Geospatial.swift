import Foundation
import OutpostCore

/// The shapes a `geoWithin` query takes: `GeoBox`, `GeoPolygon`, `GeoCircle` (Realm's protocol name).
public protocol RLMGeospatial: Sendable {
    /// The shape as the query engine reads it (Outpost's; not in Realm).
    var _geoShape: GeoShape { get }
}

/// A latitude and longitude in degrees (and an altitude, never used in calculations), to build `GeoBox`, `GeoPolygon`
/// and `GeoCircle`. Points are stored as a GeoJSON-shaped embedded object, queried with `geoWithin`:
///
/// ```swift
/// class Location: EmbeddedObject {
///     @Persisted private var coordinates: List<Double>   // longitude, then latitude
///     @Persisted private var type: String = "Point"
/// }
/// ```
public final class GeoPoint: Hashable, Sendable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double
    public let altitude: Double

    /// Nil unless latitude is in -90...90, longitude in -180...180 and altitude is not negative (and none is NaN).
    public init?(latitude: Double, longitude: Double, altitude: Double = 0) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    var vertex: GeoVertex { GeoVertex(latitude: latitude, longitude: longitude, altitude: altitude) }

    public static func == (lhs: GeoPoint, rhs: GeoPoint) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude && lhs.altitude == rhs.altitude
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitude)
        hasher.combine(longitude)
        hasher.combine(altitude)
    }

    public var description: String { "GeoPoint(latitude: \(latitude), longitude: \(longitude), altitude: \(altitude))" }
}

/// A rectangle between two corners, for `geoWithin`. Its sides are great-circle arcs, as in Realm.
public final class GeoBox: RLMGeospatial, Hashable, CustomStringConvertible {
    public let bottomLeft: GeoPoint
    public let topRight: GeoPoint

    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// Corners as `(latitude, longitude)`; nil when either is not a valid point.
    public convenience init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let lo = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
              let hi = GeoPoint(latitude: topRight.0, longitude: topRight.1)
        else { return nil }
        self.init(bottomLeft: lo, topRight: hi)
    }

    public var _geoShape: GeoShape { .box(bottomLeft: bottomLeft.vertex, topRight: topRight.vertex) }
    public static func == (lhs: GeoBox, rhs: GeoBox) -> Bool { lhs.bottomLeft == rhs.bottomLeft && lhs.topRight == rhs.topRight }
    public func hash(into hasher: inout Hasher) { hasher.combine(_geoShape) }
    public var description: String { _geoShape.description }
}

/// A polygon, possibly with holes, for `geoWithin`. Each ring has at least four points and ends where it starts;
/// holes lie inside the outer ring, do not cross or nest. (The ring rules S2 checks at query time — crossing
/// edges, holes outside the ring — are reported then, with Realm's texts.)
public final class GeoPolygon: RLMGeospatial, Hashable, CustomStringConvertible {
    public let outerRing: [GeoPoint]
    public let holes: [[GeoPoint]]?

    /// Nil when a ring has fewer than four points or does not end where it starts.
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) {
        for ring in [outerRing] + (holes ?? []) {
            guard ring.count > 3, ring.first == ring.last else { return nil }
        }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// Rings of `(latitude, longitude)` pairs; nil when a pair is not a valid point or a ring is invalid.
    public convenience init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        let outer = outerRing.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
        let inner = holes.map { $0.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) } }
        guard outer.count == outerRing.count, zip(holes, inner).allSatisfy({ $0.count == $1.count }) else { return nil }
        self.init(outerRing: outer, holes: inner)
    }

    /// Rings of `(latitude, longitude)` pairs, the holes as separate arguments.
    public convenience init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    public var _geoShape: GeoShape { .polygon(rings: ([outerRing] + (holes ?? [])).map { $0.map(\.vertex) }) }
    public static func == (lhs: GeoPolygon, rhs: GeoPolygon) -> Bool {
        lhs.outerRing == rhs.outerRing && (lhs.holes ?? []) == (rhs.holes ?? [])
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(_geoShape) }
    public var description: String { _geoShape.description }
}

/// A distance on the Earth's surface, kept in radians (Realm's conversions: the Earth's radius is 6,378.1 km).
public final class Distance: Hashable, Sendable, CustomStringConvertible {
    private static let earthRadiusMeters = 6_378_100.0

    /// The distance in radians.
    public let radians: Double

    private init?(radiansValue: Double) {
        guard radiansValue >= 0 else { return nil }  // also refuses NaN
        radians = radiansValue
    }

    public static func kilometers(_ kilometers: Double) -> Distance? { Distance(radiansValue: kilometers * 1000 / earthRadiusMeters) }
    public static func miles(_ miles: Double) -> Distance? { Distance(radiansValue: miles * 1609.344 / earthRadiusMeters) }
    public static func degrees(_ degrees: Double) -> Distance? { Distance(radiansValue: degrees * .pi / 180) }
    public static func radians(_ radians: Double) -> Distance? { Distance(radiansValue: radians) }

    public func asKilometers() -> Double { radians * Self.earthRadiusMeters / 1000 }
    public func asMiles() -> Double { radians * Self.earthRadiusMeters / 1609.344 }
    public func asDegrees() -> Double { radians * 180 / .pi }

    public static func == (lhs: Distance, rhs: Distance) -> Bool { lhs.radians == rhs.radians }
    public func hash(into hasher: inout Hasher) { hasher.combine(radians) }
    public var description: String { "Distance(radians: \(radians))" }
}

/// A circle around a point, for `geoWithin`.
public final class GeoCircle: RLMGeospatial, Hashable, CustomStringConvertible {
    public let center: GeoPoint
    /// The radius in radians.
    public let radians: Double

    /// Nil when the radius is negative or NaN.
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians >= 0 else { return nil }
        self.center = center
        radians = radiusInRadians
    }

    public convenience init(center: GeoPoint, radius: Distance) {
        self.init(center: center, radiusInRadians: radius.radians)!
    }

    /// Center as `(latitude, longitude)`; nil when it is not a valid point or the radius is negative.
    public convenience init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// Center as `(latitude, longitude)`; nil when it is not a valid point.
    public convenience init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
    }

    public var _geoShape: GeoShape { .circle(center: center.vertex, radians: radians) }
    public static func == (lhs: GeoCircle, rhs: GeoCircle) -> Bool { lhs.center == rhs.center && lhs.radians == rhs.radians }
    public func hash(into hasher: inout Hasher) { hasher.combine(_geoShape) }
    public var description: String { _geoShape.description }
}

extension Query where T: OptionalProtocol, T.Wrapped: EmbeddedObject {
    /// The objects whose GeoJSON-shaped point (an embedded object with `type` "Point" and `coordinates`
    /// `[longitude, latitude]`) lies in `value`: `$0.location.geoWithin(GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)!)`.
    public func geoWithin<U: RLMGeospatial>(_ value: U) -> Query<Bool> {
        Query<Bool>(.comparison(.geoWithin, node, .constant(.geo(value)), options: []))
    }
}
