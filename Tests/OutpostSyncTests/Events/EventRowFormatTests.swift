import Foundation
import Testing
@testable import Outpost
import OutpostCore

/// Every scalar property type, no links or collections: events write it from its column values.
final class EvScalars: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var bool: Bool
    @Persisted var int: Int
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var decimal: Decimal128
    @Persisted var uuid: UUID
    @Persisted var optionalInt: Int?
    @Persisted var optionalString: String?
    @Persisted var optionalData: Data?
    @Persisted var optionalDate: Date?
    @Persisted var optionalObjectId: ObjectId?
    @Persisted var optionalBool: Bool?
}

extension EvScalars {
    /// Values that exercise escaping, signs, rounding and the date range (the `i`th of a cycle of six).
    func fill(_ i: Int) {
        self.bool = i % 2 == 0
        self.int = [0, -1, Int.max, Int.min, 42, 1_234_567][i % 6]
        self.float = [0.1, -2.5, 3, 1e30, -0.0, 7][i % 6]
        self.double = [1.0, -0.0, 1.5e300, 0.1, 123_456_789_012_345_678, -3][i % 6]
        self.string = ["plain", "quote \" backslash \\ newline \n tab \t", "\u{1}\u{1f}", "é e\u{301} 🙂", "", "x"][i % 6]
        self.data = Data([UInt8(truncatingIfNeeded: i), 2, 3])
        self.date = [Date(timeIntervalSince1970: 1.678), Date(timeIntervalSince1970: -0.0005),
                     Date(timeIntervalSince1970: -86_400 * 365 * 2000), Date(timeIntervalSince1970: 253_402_300_800.5),
                     Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 1_700_000_000.999_9)][i % 6]
        self.decimal = Decimal128(Double(i) / 4)
        self.uuid = UUID()
        self.optionalInt = i % 3 == 0 ? nil : i
        self.optionalString = i % 3 == 1 ? nil : "s\(i)"
        self.optionalData = i % 2 == 0 ? nil : Data([1])
        self.optionalDate = i % 3 == 2 ? nil : Date(timeIntervalSince1970: Double(i) * 1000.25)
        self.optionalObjectId = i % 2 == 1 ? nil : ObjectId.generate()
        self.optionalBool = i % 3 == 0 ? nil : i % 2 == 0
    }
}

/// Scalars stored under mapped names (`propertiesMapping()`).
final class EvMapped: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var label: String
    @Persisted var score: Int
    override class func propertiesMapping() -> [String: String] {
        ["id": "_id", "label": "label_text", "score": "score_n"]
    }
}

@Suite struct EventRowFormatTests {
    /// Event payloads name fields as they are stored, on both paths, as sync documents do.
    @Test func payloadsUseTheStoredNames() throws {
        let realm = try Realm(configuration: try localEventConfiguration(types: [EvMapped.self]))
        let object = EvMapped()
        object.label = "a"
        object.score = 3
        try realm.write { realm.add(object) }
        let instance = realm.instance
        let table = try #require(instance.table(named: "EvMapped"))
        let format = try #require(table.eventRowFormat)
        let values = try #require(instance.eventRowValues(table, object._row!.rowid))
        let general = EventSerializer.json(try #require(instance.syncDocument(table, rowid: object._row!.rowid)))
        #expect(EventSerializer.rowJSON(format, values) == general)
        guard case .object(let fields) = general else { Issue.record("not an object"); return }
        #expect(Set(fields.keys) == ["_id", "label_text", "score_n"])
        #expect(text { format.writeObject(values, to: &$0) }.contains(#""label_text":"a""#))
    }

    /// Adds `count` filled `EvScalars` objects in one write.
    private func addScalars(count: Int, to realm: Realm) throws {
        try realm.write {
            for i in 0..<count {
                let o = EvScalars()
                o._id = ObjectId.generate()
                o.fill(i)
                realm.add(o)
            }
        }
    }

    private func text(_ body: (inout EventJSONWriter) -> Void) -> String {
        var writer = EventJSONWriter()
        body(&writer)
        return writer.text
    }

    @Test func columnValuesGiveTheSameTextAsTheGeneralPath() throws {
        let realm = try Realm(configuration: try localEventConfiguration(types: [EvScalars.self]))
        try addScalars(count: 12, to: realm)
        let instance = realm.instance
        let table = try #require(instance.table(named: "EvScalars"))
        let format = try #require(table.eventRowFormat)
        let rowids = realm.objects(EvScalars.self).map { $0._row!.rowid }
        var before: [Int64: [SQLiteValue]] = [:]
        for rowid in rowids {
            let values = try #require(instance.eventRowValues(table, rowid))
            let general = EventSerializer.json(try #require(instance.syncDocument(table, rowid: rowid)))
            #expect(text { format.writeObject(values, to: &$0) } == general.text)
            #expect(EventSerializer.rowJSON(format, values) == general)
            before[rowid] = values
        }
        // Modifications: only the fields whose JSON changed, as the general path filters them.
        try realm.write {
            for (i, o) in realm.objects(EvScalars.self).enumerated() { o.fill(i + 1 + i % 2) }
        }
        for rowid in rowids {
            let after = try #require(instance.eventRowValues(table, rowid))
            guard case .object(let oldFields) = EventSerializer.rowJSON(format, before[rowid]!),
                case .object(let newFields) = EventSerializer.rowJSON(format, after)
            else { Issue.record("not objects"); continue }
            let expected = JSONValue.object(newFields.filter { oldFields[$0.key] != $0.value }).text
            let changed = text { EventSerializer.writeChangedFields(format, old: before[rowid]!, new: after, to: &$0) }
            #expect(changed == expected)
        }
    }

    /// A write event of many rows, written from column values on the event worker when the transaction commits,
    /// is the general path's text (rows changed twice, modified then deleted).
    @Test func aWriteEventOfManyRowsIsTheGeneralPathsText() async throws {
        let realm = try await Realm(configuration: try localEventConfiguration(types: [EvScalars.self]))
        try addScalars(count: 300, to: realm)
        let instance = realm.instance
        let table = try #require(instance.table(named: "EvScalars"))
        let format = try #require(table.eventRowFormat)
        let objects = Array(realm.objects(EvScalars.self))
        let rowids = objects.map { $0._row!.rowid }
        var before: [Int64: [SQLiteValue]] = [:]
        for rowid in rowids { before[rowid] = try #require(instance.eventRowValues(table, rowid)) }
        let scope = realm.events!.beginScope(activity: "w")
        try realm.write {
            for (i, o) in objects.enumerated() {
                o.fill(i + 1)
                if i % 7 == 0 { o.fill(i + 2) }
            }
            for o in objects.prefix(5) { realm.delete(o) }
        }
        try await scope.commit()
        let deleted = Array(rowids.prefix(5)).sorted()
        let modified = Array(rowids.dropFirst(5)).sorted()
        let modifications = try modified.map { rowid -> JSONValue in
            let after = try #require(instance.eventRowValues(table, rowid))
            guard case .object(let oldFields) = EventSerializer.rowJSON(format, before[rowid]!),
                case .object(let newFields) = EventSerializer.rowJSON(format, after)
            else { throw Realm.Error(.fail, "not objects") }
            return .object(["newValue": .object(newFields.filter { oldFields[$0.key] != $0.value }),
                            "oldValue": EventSerializer.rowJSON(format, before[rowid]!)])
        }
        let expected = JSONValue.object(["EvScalars": .object([
            "deletions": .array(deleted.map { EventSerializer.rowJSON(format, before[$0]!) }),
            "modifications": .array(modifications),
        ])]).text
        let stored = try storedEvents(realm)
        #expect(stored.count == 1)
        #expect(stored.last?.event == "write")
        #expect(stored.last?.data == expected)
    }

    /// A modification's `newValue` leaves out the fields whose JSON did not change although their columns did
    /// (dates within the same millisecond) and shows changes to and from null.
    @Test func modificationsCompareTheJSONOfChangedColumns() throws {
        let realm = try Realm(configuration: try localEventConfiguration(types: [EvScalars.self]))
        let table = try #require(realm.instance.table(named: "EvScalars"))
        let format = try #require(table.eventRowFormat)
        let o = EvScalars()
        o._id = ObjectId.generate()
        o.fill(0)
        o.date = Date(timeIntervalSince1970: 10.0001)
        try realm.write { realm.add(o) }
        let rowid = try #require(o._row?.rowid)
        let changes: [(EvScalars) -> Void] = [
            { $0.date = Date(timeIntervalSince1970: 10.0009) },
            { $0.date = Date(timeIntervalSince1970: 10.001) },
            { $0.optionalInt = $0.optionalInt == nil ? 5 : nil },
            { $0.optionalString = $0.optionalString == nil ? "now" : nil },
            { $0.optionalObjectId = $0.optionalObjectId == nil ? ObjectId.generate() : nil },
            { $0.optionalBool = $0.optionalBool == nil ? false : nil },
            { $0.optionalDate = $0.optionalDate == nil ? Date(timeIntervalSince1970: 1) : nil },
            { $0.optionalData = $0.optionalData == nil ? Data([9]) : nil },
            { $0.bool.toggle(); $0.int += 1; $0.string += "é" },
        ]
        for change in changes + changes {
            let before = try #require(realm.instance.eventRowValues(table, rowid))
            try realm.write { change(o) }
            let after = try #require(realm.instance.eventRowValues(table, rowid))
            guard case .object(let oldFields) = EventSerializer.rowJSON(format, before),
                case .object(let newFields) = EventSerializer.rowJSON(format, after)
            else { Issue.record("not objects"); continue }
            let expected = JSONValue.object(newFields.filter { oldFields[$0.key] != $0.value }).text
            #expect(text { EventSerializer.writeChangedFields(format, old: before, new: after, to: &$0) } == expected)
        }
    }

    @Test func timestampsAndIntegersMatchTheFormattedText() {
        for seconds in [0, 1.678, -0.0005, -62_135_596_800, 253_402_300_799.999, 253_402_300_800, 1e12, -1e12] {
            let date = Date(timeIntervalSince1970: seconds)
            let totalMillis = Int64((date.timeIntervalSince1970 * 1000 + 1e-4).rounded(.down))
            var s = totalMillis / 1000, ms = totalMillis % 1000
            if ms < 0 { ms += 1000; s -= 1 }
            var t = time_t(s)
            var parts = tm()
            gmtime_r(&t, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900,
                                  Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                                  Int(parts.tm_sec), Int(ms))
            #expect(EventSerializer.timestamp(date) == expected)
        }
        // Every day boundary and leap rule: the civil date computed without `gmtime_r` matches it.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var samples: [Double] = [951_782_400, 951_868_799.999, 4_107_542_400, 946_684_800, 978_307_200, -2_208_988_800]
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Double(Int64(bitPattern: state >> 1) % 315_537_897_600) - 62_135_596_800 + 0.5)
        }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: seconds)
            let totalMillis = Int64((date.timeIntervalSince1970 * 1000 + 1e-4).rounded(.down))
            var t = time_t(totalMillis / 1000 - (totalMillis % 1000 < 0 ? 1 : 0))
            var parts = tm()
            gmtime_r(&t, &parts)
            let prefix = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900,
                                Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
                                Int(parts.tm_sec))
            #expect(EventSerializer.timestamp(date).hasPrefix(prefix), "\(seconds)")
        }
        for value: Int64 in [0, 7, -7, 10, -10, 999, Int64.max, Int64.min] {
            #expect(text { $0.appendInt(value) } == String(value))
        }
    }
}
