import Hummingbird
import Logging

/// Answers every error as JSON (see ``APIError``) and counts requests and errors. A body over the limit and a
/// malformed request also close the connection (`Connection: close`, which ``HTTPExchangeObserver`` acts on).
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let method = request.method.rawValue
        do {
            let response = try await next(request, context)
            ServerMetrics.request(method: method, status: response.status.code)
            return response
        } catch {
            let apiError = APIError(from: error)
            if apiError.status == .internalServerError {
                context.logger.error("\(request.method) \(request.uri.path) failed: \(String(reflecting: error))")
            }
            ServerMetrics.request(method: method, status: apiError.status.code)
            ServerMetrics.error(code: apiError.code)
            var response = apiError.jsonResponse
            // The rest of a refused body, or of bytes that are not HTTP, is not read: the connection closes.
            if apiError.closesConnection { response.headers[.connection] = "close" }
            return response
        }
    }
}
