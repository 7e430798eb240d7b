import Foundation

/// The evaluated rowids of a `Results` for one Realm version.
final class ResultsCache {
    var rowids: [Int64] = []
    var version = -1
    var writeCounter = -1
    /// The (version, writeCounter) whose evaluation was last recorded as a query read by the event library.
    var eventRecordedAt: (Int, Int)?
}
