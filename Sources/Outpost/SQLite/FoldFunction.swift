import CSQLite
import Foundation
import OutpostCore

/// `outpost_fold(text, options)`: folds case (option 1, `[c]`) and diacritics (option 2, `[d]`)
/// the way Foundation does, so `[c]` and `[d]` work for all of Unicode, not only ASCII.
enum FoldFunction {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "outpost_fold", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let argv, let textPtr = sqlite3_value_text(argv[0]) else {
                sqlite3_result_null(context)
                return
            }
            let folded = FoldFunction.fold(String(cString: textPtr), options: StringOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(argv[1]))))
            sqlite3_result_text(context, folded, -1, sqliteTransient)
        }, nil, nil, nil)
    }

    /// `text` folded as `outpost_fold(text, options)` does (for constants folded before binding).
    static func fold(_ text: String, options: StringOptions) -> String {
        var compare: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
        return text.folding(options: compare, locale: nil)
    }
}
