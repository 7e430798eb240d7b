/// The admin console's scripts. `console.js` (`GET /admin/console.js`, `Console/console.js`) is the core: sign-in, the
/// page's frame, the Overview, Users, Data and Logs tabs. The views after it (`GET /admin/<name>.js`,
/// `Console/<name>.js`, loaded by the page in this order) register themselves with the core: the Overview's charts,
/// the Functions tab, and the Audit tab with its event pane. They render the admin API's answers into the page, as
/// text only. They run in a browser; the core also runs under Node.js in the tests (`AdminConsoleTests`), which give
/// it a small document.
enum AdminConsoleScript {
    static let text = AdminConsoleResource.text(of: "console", withExtension: "js")

    /// The views' file names, without `.js`, in the order the page loads them.
    static let viewNames = ["console-charts", "console-functions", "console-audit-event", "console-audit"]

    /// The views' scripts: name (without `.js`) and text.
    static let views: [(name: String, text: String)] = viewNames.map { name in
        (name: name, text: AdminConsoleResource.text(of: name, withExtension: "js"))
    }
}
