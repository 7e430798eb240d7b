/// The iterator of Realm's collections (Realm's name). A managed `List` is iterated over the elements it held when
/// the loop began, so a loop that appends to the list it walks ends (Realm iterates a snapshot in a write
/// transaction), and the list is read once, not once per element.
public struct RLMIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let nextElement: () -> Element?

    init(_ next: @escaping () -> Element?) {
        nextElement = next
    }

    public mutating func next() -> Element? { nextElement() }
}
