/// The admin console's page (`GET /admin`, `Console/console.html`) and style sheet (`GET /admin/console.css`,
/// `Console/console.css`): a shell the script fills. Its links are relative (to `/admin`), so it also works behind a
/// reverse proxy under a sub-path.
enum AdminConsolePage {
    static let html = AdminConsoleResource.text(of: "console", withExtension: "html")
    static let css = AdminConsoleResource.text(of: "console", withExtension: "css")
}
