import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
// UIKit and AppKit give `IndexPath` a section and an item; Linux's Foundation does not. Sectioned results are indexed
// and report their changes by such index paths, so Realm code that writes `IndexPath(item: 0, section: 1)` or reads
// `path.section` compiles here too.
extension IndexPath {
    /// The index path of `item` in `section`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The index path of `row` in `section` (UIKit's name, for table views).
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first of the two indices.
    public var section: Int {
        get {
            precondition(count == 2, "An index path with a section and an item has two indices.")
            return self[0]
        }
        set {
            precondition(count == 2, "An index path with a section and an item has two indices.")
            self[0] = newValue
        }
    }

    /// The item in the section: the second of the two indices.
    public var item: Int {
        get {
            precondition(count == 2, "An index path with a section and an item has two indices.")
            return self[1]
        }
        set {
            precondition(count == 2, "An index path with a section and an item has two indices.")
            self[1] = newValue
        }
    }

    /// The row in the section (UIKit's name for `item`, for table views).
    public var row: Int {
        get { item }
        set { item = newValue }
    }
}
#endif
