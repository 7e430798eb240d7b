import Outpost
import Testing

@Suite struct PackageSmokeTests {
    @Test func syncManagerHasNoErrorHandlerByDefault() {
        #expect(Bool(true))
    }
}
