import Foundation

/// The evaluated rowids of a `Results` for one Realm version.
final class ResultsCache {
    var rowids: [Int64] = []
    var version = -1
    var writeCounter = -1
    /// The (version, writeCounter) whose evaluation was last recorded as a query read by the event library.
    var eventRecordedAt: (Int, Int)?
    /// For results of values: the collection's elements in the evaluated version, which `rowids` index.
    var values: Values?

    struct Values {
        var elements: [_StoredValue]
        /// A map's keys and their positions in `elements`.
        var mapKeys: [String: Int]?
    }
}
