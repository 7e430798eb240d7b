import Foundation
import OutpostCore

/// `List`'s range and offset edits (`RangeReplaceableCollection`'s and SwiftUI's shapes). A managed list is read
/// once and written once per call, however many elements move.
extension List {
    /// Removes the first `number` elements. Traps, with Realm's text, when the list has fewer.
    public func removeFirst(_ number: Int = 1) {
        Self.checkRemoval(number, count: count)
        apply(.removeFirst(number))
    }

    /// Removes the last `number` elements. Traps, with Realm's text, when the list has fewer.
    public func removeLast(_ number: Int = 1) {
        Self.checkRemoval(number, count: count)
        apply(.removeLast(number))
    }

    /// Inserts `newElements` at `i`, in their order.
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Element == Element {
        let count = self.count
        precondition(i >= 0, "Cannot pass a negative value for 'index'.")
        precondition(i <= count, "Index \(i) is out of bounds (must be less than \(count + 1)).")
        apply(.insert(at: i), new: Array(newElements))
    }

    /// Replaces the elements in `subrange` with `newElements`.
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ subrange: R, with newElements: C)
    where C.Element == Element, R.Bound == Int {
        let bounds = checked(subrange)
        apply(.replace(bounds), new: Array(newElements))
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        let range = checked(bounds)
        apply(.replace(range))
    }

    /// Removes the elements at `offsets` (SwiftUI's `onDelete`).
    public func remove(atOffsets offsets: IndexSet) {
        let count = self.count
        if let last = offsets.last {
            precondition(last < count, "Index \(last) is out of bounds (must be less than \(count)).")
        }
        apply(.remove(offsets))
    }

    /// Moves the elements at `offsets` to `destination`, keeping their order (SwiftUI's `onMove`): `destination` is
    /// a position in the list before the move.
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        let count = self.count
        if let last = offsets.last {
            precondition(last < count, "Index \(last) is out of bounds (must be less than \(count)).")
        }
        precondition(destination >= 0 && destination <= count,
                     "Index \(destination) is out of bounds (must be less than \(count + 1)).")
        apply(.move(offsets, to: destination))
    }

    private enum Edit {
        case removeFirst(Int)
        case removeLast(Int)
        case insert(at: Int)
        case replace(Range<Int>)
        case remove(IndexSet)
        case move(IndexSet, to: Int)
    }

    /// Applies `edit` (with `new` elements): in memory when unmanaged, as one write of the list when managed.
    private func apply(_ edit: Edit, new: [Element] = []) {
        guard accessor != nil else { return Self.apply(edit, to: &unmanaged, new: new) }
        let stored = new.map { $0._store() }
        replace { Self.apply(edit, to: &$0, new: stored) }
    }

    private static func apply<T>(_ edit: Edit, to elements: inout [T], new: [T]) {
        switch edit {
        case .removeFirst(let n): elements.removeFirst(n)
        case .removeLast(let n): elements.removeLast(n)
        case .insert(let i): elements.insert(contentsOf: new, at: i)
        case .replace(let range): elements.replaceSubrange(range, with: new)
        case .remove(let offsets): for offset in offsets.reversed() { elements.remove(at: offset) }
        case .move(let offsets, let destination):
            let moving = offsets.map { elements[$0] }
            let before = offsets.count(in: 0..<destination)
            for offset in offsets.reversed() { elements.remove(at: offset) }
            elements.insert(contentsOf: moving, at: destination - before)
        }
    }

    private func checked<R: RangeExpression>(_ range: R) -> Range<Int> where R.Bound == Int {
        let count = self.count
        let bounds = range.relative(to: 0..<count)
        precondition(bounds.lowerBound >= 0, "Cannot pass a negative value for 'index'.")
        precondition(bounds.upperBound <= count, "Index \(bounds.upperBound) is out of bounds (must be less than \(count + 1)).")
        return bounds
    }

    private static func checkRemoval(_ number: Int, count: Int) {
        precondition(number >= 0, "Cannot pass a negative value for 'index'.")
        precondition(number <= count,
                     "It is not possible to remove more objects (\(number)) from a list than it already contains (\(count)).")
    }
}
