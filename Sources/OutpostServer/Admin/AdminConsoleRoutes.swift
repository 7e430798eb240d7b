import Hummingbird

/// The admin console: a web page over the admin API, at `GET /admin` (with `/admin/console.js`, the views' scripts
/// `/admin/<name>.js` of ``AdminConsoleScript/views`` and `/admin/console.css`; the files are the resources in
/// `Admin/Console`). The page holds no data and no key: it
/// asks for the admin key, keeps it in the browser tab's session storage and sends it as `X-Admin-Key` to
/// `/api/admin/v1`. Its content security policy allows only its own script and style sheet and same-origin requests,
/// and it may not be framed. Outpost-only (App Services' console is Atlas's web UI).
struct AdminConsoleRoutes {
    static let path = "admin"

    func register(on router: Router<OutpostRequestContext>) {
        // The files are read here, once per process (`static let`s), not per request: a server whose resource bundle
        // is missing stops at start-up rather than at its first `GET /admin`.
        let page = AdminConsolePage.html
        let script = AdminConsoleScript.text
        let styleSheet = AdminConsolePage.css
        router.get(RouterPath(Self.path)) { request, _ in
            // The page's links are relative to `…/admin`; from `…/admin/` they would miss, so that goes to `…/admin`.
            guard !request.uri.path.hasSuffix("/") else {
                return Response(status: .movedPermanently, headers: [.location: "../admin", .cacheControl: "no-store"])
            }
            return Self.response(page, type: "text/html; charset=utf-8")
        }
        router.get(RouterPath(Self.path + "/console.js")) { _, _ in
            Self.response(script, type: "text/javascript; charset=utf-8")
        }
        for view in AdminConsoleScript.views {
            let text = view.text
            router.get(RouterPath(Self.path + "/" + view.name + ".js")) { _, _ in
                Self.response(text, type: "text/javascript; charset=utf-8")
            }
        }
        router.get(RouterPath(Self.path + "/console.css")) { _, _ in
            Self.response(styleSheet, type: "text/css; charset=utf-8")
        }
    }

    static func response(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type,
                .contentSecurityPolicy:
                    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                .init("X-Content-Type-Options")!: "nosniff",
                .init("Referrer-Policy")!: "no-referrer",
                .cacheControl: "no-store",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
