import OutpostCoreTesting
import Testing

extension QueryCorpusCase: CustomTestStringConvertible {
    public var testDescription: String { text }
}
