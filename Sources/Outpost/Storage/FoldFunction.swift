import CSQLite
import Foundation

/// `outpost_fold(text, options)`: folds case (option 1, `[c]`) and diacritics (option 2, `[d]`)
/// the way Foundation does, so `[c]` and `[d]` work for all of Unicode, not only ASCII.
enum FoldFunction {
    static func register(on db: OpaquePointer) {
        sqlite3_create_function_v2(db, "outpost_fold", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let argv, let textPtr = sqlite3_value_text(argv[0]) else {
                sqlite3_result_null(context)
                return
            }
            let text = String(cString: textPtr)
            let options = sqlite3_value_int(argv[1])
            var compare: String.CompareOptions = []
            if options & 1 != 0 { compare.insert(.caseInsensitive) }
            if options & 2 != 0 { compare.insert(.diacriticInsensitive) }
            let folded = text.folding(options: compare, locale: nil)
            sqlite3_result_text(context, folded, -1, sqliteTransient)
        }, nil, nil, nil)
    }
}
