import Outpost
import Testing

@Test func documentKeysAreSorted() {
    let doc: Document = ["b": .int(1), "a": .string("x")]
    #expect(doc.sortedKeys == ["a", "b"])
}
