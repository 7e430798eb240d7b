import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET whose answer must be a 200 of at most `limit` bytes: a larger one is cancelled as it arrives, before it is
/// all in memory (`URLSession.data(for:)` would keep whatever the other side sends).
final class LimitedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    // The delegate's calls come one at a time on the session's serial delegate queue.
    private let limit: Int
    private var data = Data()
    private var refusal: Refused?
    private var continuation: CheckedContinuation<Data, any Error>?

    private init(limit: Int) {
        self.limit = limit
    }

    /// The body of a 200 answer to `request`.
    ///
    /// - Throws: ``Refused`` for another status or more than `limit` bytes, or the transport's error.
    static func data(for request: URLRequest, limit: Int) async throws -> Data {
        let delegate = LimitedDownload(limit: limit)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: queue)
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                delegate.continuation = continuation
                session.dataTask(with: request).resume()
            }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            refusal = Refused(description: "answered HTTP \(http.statusCode)")
        } else if response.expectedContentLength > Int64(limit) {
            refusal = Refused(description: "its answer is larger than \(limit) bytes")
        }
        completionHandler(refusal == nil ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard refusal == nil else { return }
        self.data.append(data)
        if self.data.count > limit {
            refusal = Refused(description: "its answer is larger than \(limit) bytes")
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        session.finishTasksAndInvalidate()
        let continuation = self.continuation
        self.continuation = nil
        if let refusal {
            continuation?.resume(throwing: refusal)
        } else if let error {
            continuation?.resume(throwing: Refused(description: error.localizedDescription))
        } else {
            continuation?.resume(returning: data)
        }
    }
}
