import CoreMetrics
import Metrics
import Prometheus

/// The server's metrics: swift-metrics counters, exposed by `GET /metrics` in Prometheus text format.
///
/// `MetricsSystem.bootstrap` may run only once per process, so ``bootstrap()`` installs a
/// `PrometheusMetricsFactory` the first time it is called and does nothing after. A host process that bootstraps
/// swift-metrics itself before starting the server keeps its own factory; `/metrics` then shows only what reached
/// ``registry``.
public enum ServerMetrics {
    /// The registry `/metrics` prints.
    public static let registry = PrometheusCollectorRegistry()

    private static let bootstrapped: Bool = {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return true
    }()

    /// Installs the Prometheus factory once per process.
    public static func bootstrap() {
        _ = bootstrapped
    }

    /// The Prometheus text exposition of every metric.
    public static func exposition() -> String {
        registry.emitToString()
    }

    /// Counts one HTTP request by method and status code.
    static func request(method: String, status: Int) {
        Counter(label: "outpost_http_requests_total", dimensions: [("method", method), ("status", String(status))])
            .increment()
    }

    /// Counts one successful login by provider.
    static func login(provider: String) {
        Counter(label: "outpost_logins_total", dimensions: [("provider", provider)]).increment()
    }

    /// Counts one error response by its error code.
    static func error(code: String) {
        Counter(label: "outpost_errors_total", dimensions: [("code", code)]).increment()
    }

    /// Counts one accepted sync WebSocket connection.
    static func syncConnection() {
        Counter(label: "outpost_sync_connections_total").increment()
    }
}
