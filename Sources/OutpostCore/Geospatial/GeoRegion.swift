import Foundation

/// A `GeoShape` ready to test points: a spherical cap for a circle, rings of unit vectors for a box or polygon.
public struct GeoRegion: Sendable {
    /// A reason realm-core (S2) gives for refusing a shape.
    struct Invalid: Error {
        let message: String
    }

    private enum Kind: Sendable {
        case cap(center: Vector, radians: Double)
        /// The outer ring first, then the holes.
        case rings([Ring])
    }

    private let kind: Kind

    init(_ shape: GeoShape) throws {
        switch shape {
        case .circle(let center, let radians):
            guard radians >= 0, !radians.isNaN else { throw Invalid(message: "The radius of a circle must be a non-negative number") }
            kind = .cap(center: try Vector(center), radians: radians)
        case .box(let lo, let hi):
            let corners = [lo, GeoVertex(latitude: hi.latitude, longitude: lo.longitude), hi,
                           GeoVertex(latitude: lo.latitude, longitude: hi.longitude), lo]
            kind = .rings(try Self.rings([corners]))
        case .polygon(let rings):
            kind = .rings(try Self.rings(rings))
        }
    }

    /// True if the point lies in the region (on its boundary counts as in).
    public func contains(latitude: Double, longitude: Double) -> Bool {
        guard let point = try? Vector(GeoVertex(latitude: latitude, longitude: longitude)) else { return false }
        switch kind {
        case .cap(let center, let radians):
            return center.angle(to: point) <= radians
        case .rings(let rings):
            guard rings[0].contains(point) else { return false }
            return !rings.dropFirst().contains { $0.contains(point) && !$0.hasVertex(point) }
        }
    }

    /// realm-core's checks, in its order and with its texts.
    private static func rings(_ input: [[GeoVertex]]) throws -> [Ring] {
        guard !input.isEmpty else { throw Invalid(message: "Polygon has no rings.") }
        var rings: [Ring] = []
        for (index, points) in input.enumerated() {
            var vectors = try points.map(Vector.init)
            guard let first = points.first, let last = points.last, first.latitude == last.latitude,
                  first.longitude == last.longitude
            else {
                throw Invalid(message: "Ring is not closed, first vertex '\(points.first.map(\.coreText) ?? "")' "
                    + "is not equal to last vertex '\(points.last.map(\.coreText) ?? "")'")
            }
            vectors = vectors.enumerated().filter { $0.offset == 0 || $0.element != vectors[$0.offset - 1] }.map(\.element)
            vectors.removeLast()
            guard vectors.count >= 3 else {
                throw Invalid(message: "Ring \(index) must have at least 3 different vertices, \(vectors.count) unique vertices were provided")
            }
            let ring = Ring(vectors)
            if let (i, j) = ring.crossingEdges() {
                let n = vectors.count
                func edge(_ k: Int) -> String { "\(vectors[k].degreesText)-\(vectors[(k + 1) % n].degreesText)" }
                throw Invalid(message: "Ring \(index) is not valid: 'Edges \(i) and \(j) cross. Edge locations in degrees: \(edge(i)) and \(edge(j))''")
            }
            if let outer = rings.first, !outer.contains(ring) {
                throw Invalid(message: "Secondary ring \(index) not contained by first exterior ring - secondary rings must be holes in the first ring")
            }
            rings.append(ring)
        }
        var edges: [Set<Vector>: (ring: Int, edge: Int)] = [:]
        for (r, ring) in rings.enumerated() {
            for e in ring.vertices.indices {
                let key: Set<Vector> = [ring.vertices[e], ring.vertices[(e + 1) % ring.vertices.count]]
                if let other = edges[key] {
                    throw Invalid(message: "Polygon isn't valid: 'Duplicate edge: ring \(r), edge \(e) and ring \(other.ring), edge \(other.edge)''")
                }
                edges[key] = (r, e)
            }
        }
        for (i, hole) in rings.enumerated().dropFirst() {
            if rings.indices.dropFirst().contains(where: { $0 != i && rings[$0].contains(hole) }) {
                throw Invalid(message: "Polygon interior rings cannot be nested: \(i)")
            }
        }
        return rings
    }
}

/// A point of the unit sphere.
struct Vector: Hashable, Sendable {
    let x, y, z: Double

    init(x: Double, y: Double, z: Double) {
        (self.x, self.y, self.z) = (x, y, z)
    }

    init(_ vertex: GeoVertex) throws {
        guard (-180...180).contains(vertex.longitude), (-90...90).contains(vertex.latitude) else {
            throw GeoRegion.Invalid(message: "Longitude/latitude is out of bounds, lng: \(GeoVertex.g(vertex.longitude)) lat: \(GeoVertex.g(vertex.latitude))")
        }
        let lat = vertex.latitude * .pi / 180, lon = vertex.longitude * .pi / 180
        self.init(x: cos(lat) * cos(lon), y: cos(lat) * sin(lon), z: sin(lat))
    }

    func dot(_ o: Vector) -> Double { x * o.x + y * o.y + z * o.z }
    func cross(_ o: Vector) -> Vector { Vector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x) }
    static func + (a: Vector, b: Vector) -> Vector { Vector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }

    /// The great-circle angle between two points, in radians.
    func angle(to o: Vector) -> Double { atan2(sqrt(cross(o).dot(cross(o))), dot(o)) }

    /// S2's text of a vertex in error messages: `[latitude, longitude]` with seven decimals.
    var degreesText: String {
        let lat = atan2(z, sqrt(x * x + y * y)) * 180 / .pi, lon = atan2(y, x) * 180 / .pi
        return "[" + String(format: "%.7f", lat) + ", " + String(format: "%.7f", lon) + "]"
    }

    /// The orientation of three points: +1 counter-clockwise, -1 clockwise, 0 when on one great circle.
    static func sign(_ a: Vector, _ b: Vector, _ c: Vector) -> Int {
        let d = a.cross(b).dot(c)
        return d > 1e-15 ? 1 : d < -1e-15 ? -1 : 0
    }
}

/// A closed ring of great-circle edges; its inside is the smaller of the two areas it bounds (S2's `Normalize`):
/// the vertices are kept in the order that puts that area on the left.
struct Ring: Sendable {
    let vertices: [Vector]

    init(_ vertices: [Vector]) {
        // Gauss–Bonnet: the area on the left of a loop is 2π minus the sum of its (left-positive) turning angles.
        var turning = 0.0
        let n = vertices.count
        for i in 0..<n {
            let a = vertices[(i + n - 1) % n], b = vertices[i], c = vertices[(i + 1) % n]
            let n1 = a.cross(b), n2 = b.cross(c)
            turning += atan2(n1.cross(n2).dot(b), n1.dot(n2))
        }
        self.vertices = 2 * .pi - turning > 2 * .pi ? vertices.reversed() : vertices
    }

    func hasVertex(_ p: Vector) -> Bool { vertices.contains(p) }

    /// The winding of the ring around the axis through `p` is +2π when `p` is inside (on the left) and its antipode
    /// is not, -2π the other way round, 0 when both or neither are (a ring smaller than a hemisphere: neither).
    func contains(_ p: Vector) -> Bool {
        if hasVertex(p) { return true }
        var winding = 0.0
        for i in vertices.indices {
            let a = vertices[i], b = vertices[(i + 1) % vertices.count]
            winding += atan2(a.cross(b).dot(p), a.dot(b) - a.dot(p) * b.dot(p))
        }
        return winding > .pi
    }

    /// True if every vertex of `other` is in this ring and no edges cross.
    func contains(_ other: Ring) -> Bool {
        guard other.vertices.allSatisfy(contains) else { return false }
        for i in vertices.indices {
            for j in other.vertices.indices {
                if Self.cross(vertices[i], vertices[(i + 1) % vertices.count],
                              other.vertices[j], other.vertices[(j + 1) % other.vertices.count]) {
                    return false
                }
            }
        }
        return true
    }

    /// The first two non-adjacent edges that cross, if any.
    func crossingEdges() -> (Int, Int)? {
        let n = vertices.count
        for i in 0..<n {
            for j in (i + 2)..<max(i + 2, n) where !(i == 0 && j == n - 1) {
                if Self.cross(vertices[i], vertices[(i + 1) % n], vertices[j], vertices[(j + 1) % n]) { return (i, j) }
            }
        }
        return nil
    }

    /// Whether edges AB and CD cross at a point interior to both (S2's `CrossingSign` > 0).
    static func cross(_ a: Vector, _ b: Vector, _ c: Vector, _ d: Vector) -> Bool {
        let acb = -Vector.sign(a, b, c)
        guard acb != 0, Vector.sign(a, b, d) == acb else { return false }
        guard -Vector.sign(c, d, b) == acb else { return false }
        return Vector.sign(c, d, a) == acb
    }
}

extension GeoRegion {
    /// Whether a stored GeoJSON-shaped point (`type` "Point", any case; `coordinates` longitude then latitude) lies in
    /// the region; any other shape never does, as in realm-core.
    public func contains(geoJSONType type: String?, coordinates: [Double]) -> Bool {
        guard type?.lowercased() == "point", coordinates.count >= 2 else { return false }
        return contains(latitude: coordinates[1], longitude: coordinates[0])
    }
}

extension Value {
    /// A coordinate: any number.
    var geoNumber: Double? {
        switch self {
        case .double(let d): d
        case .float(let f): Double(f)
        case .int(let i): Double(i)
        default: nil
        }
    }
}
