import Hummingbird
import NIOCore

/// `GET /health` and `GET /metrics`.
struct HealthRoutes {
    func register(on router: Router<OutpostRequestContext>) {
        router.get("health") { _, _ -> Response in
            .json(.object(["status": .string("ok")]))
        }
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: ServerMetrics.exposition())))
        }
    }
}
