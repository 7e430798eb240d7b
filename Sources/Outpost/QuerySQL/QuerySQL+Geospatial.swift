import Foundation
import OutpostCore

extension QuerySQL {
    /// The shape of a `GEOWITHIN` comparison, or of an `IN` whose argument is a shape (Realm's `location IN %@`).
    mutating func geoShape(_ c: QueryPredicate.Comparison) throws(QueryError) -> GeoShape? {
        switch (c.op, c.rhs) {
        case (.geoWithin, .geo(let shape)): return shape
        case (.geoWithin, .argument(let index)), (.in, .argument(let index)):
            guard index < arguments.count else {
                if c.op == .in { return nil }
                throw QueryError(.unknownArgument, "request for argument at index \(index) but only \(arguments.count) provided")
            }
            if let geospatial = arguments[index] as? any RLMGeospatial { return geospatial._geoShape }
            if c.op == .in { return nil }
            throw QueryError(.invalidArgument, "GEOWITHIN expects a GeoBox, GeoPolygon or GeoCircle for argument \(index)")
        case (.geoWithin, _):
            throw QueryError(.invalidArgument, "GEOWITHIN expects geoBox(…), geoPolygon(…), geoCircle(…) or an argument")
        default:
            return nil
        }
    }

    /// `location GEOWITHIN shape`: the link must reach an embedded object with a `type` string and `coordinates` list
    /// of doubles (realm-core's duck typing of a GeoJSON point); `outpost_geo_within` tests each row's point.
    mutating func geoWithin(_ lhs: QueryOperand, _ shape: GeoShape, table: TableInfo, alias: String)
        throws(QueryError) -> String
    {
        guard case .keyPath(let keyPath) = lhs else {
            throw QueryError(.invalidKeyPath, "GEOWITHIN needs a key path to an embedded object on its left")
        }
        guard case .term(let link) = try resolve(keyPath, table: table, alias: alias), link.type == .object,
              let className = link.objectClassName, let target = realm.table(named: className)
        else {
            throw QueryError(.typeMismatch, "A GEOWITHIN query can only operate on a link to an embedded class: '\(keyPath)'")
        }
        guard target.schema.isEmbedded else {
            throw QueryError(.invalidKeyPath,
                "A GEOWITHIN query can only operate on a link to an embedded class but '\(className)' is at the top level")
        }
        guard let (_, type) = target.property(named: "type"), type.type == .string, type.collection == .none,
              let (_, coordinates) = target.property(named: "coordinates"), coordinates.type == .double,
              coordinates.collection == .list
        else {
            throw QueryError(.invalidKeyPath,
                "Query '\(keyPath) GEOWITHIN \(shape)' links to data in the wrong format for a geoWithin query")
        }
        _ = try shape.region()  // a shape S2 refuses fails the query, with realm-core's text
        let a = self.alias()
        let encoded = param(.text(GeoFunction.encode(shape)))
        return "coalesce((SELECT outpost_geo_within(\(a).\(SQL.quote(type.columnName)), \(a).\(SQL.quote(coordinates.columnName)), \(encoded)) "
            + "FROM \(target.sqlName) \(a) WHERE \(a).rowid = \(link.sql)), 0)"
    }
}
