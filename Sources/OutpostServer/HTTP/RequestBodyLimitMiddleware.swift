import Hummingbird

/// Sets the request body limit the routes read JSON bodies with (``OutpostServerConfiguration/maxRequestBodySize``,
/// through `Request.body(upTo:)`); the event upload has a larger limit of its own.
struct RequestBodyLimitMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    let limit: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.maxUploadSize = limit
        return try await next(request, context)
    }
}
