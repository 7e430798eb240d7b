/// The admin console's script (`GET /admin/console.js`, `Console/console.js`): renders the admin API's answers into
/// the page, as text only. It runs in a browser, and under Node.js in the tests (`AdminConsoleTests`), which give it
/// a small document.
enum AdminConsoleScript {
    static let text = AdminConsoleResource.text(of: "console", withExtension: "js")
}
