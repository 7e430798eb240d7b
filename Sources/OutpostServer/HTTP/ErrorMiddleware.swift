import Hummingbird
import Logging

/// Answers every error as JSON (see ``APIError``) and counts requests and errors.
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
            return apiError.jsonResponse
        }
    }
}
