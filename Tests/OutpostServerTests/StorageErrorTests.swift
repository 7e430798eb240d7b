import OutpostServer
import Testing

@Suite struct StorageErrorTests {
    @Test func codeMatchesThrownError() {
        let error: any Error = StorageError(.duplicate, "user 'a' exists")
        #expect(StorageError.Code.duplicate ~= error)
        #expect(!(StorageError.Code.notFound ~= error))
        #expect("\(error)" == "duplicate: user 'a' exists")
    }
}
