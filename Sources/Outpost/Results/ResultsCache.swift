import Foundation

/// The evaluated rowids of a `Results` for one Realm version.
final class ResultsCache {
    var rowids: [Int64] = []
    var version = -1
    var writeCounter = -1
}
