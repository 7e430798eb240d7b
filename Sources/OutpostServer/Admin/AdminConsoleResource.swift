import Foundation

/// The admin console's files: the `Console` folder beside this file, a SwiftPM resource of `OutpostServer` copied
/// byte for byte (`.copy`; the files end without a newline, so each is served exactly as it is stored).
///
/// Each file is read once, into a `static let` of ``AdminConsolePage`` or ``AdminConsoleScript``, when
/// ``AdminConsoleRoutes`` registers its routes, so a server whose resource bundle is missing stops at start-up and
/// no request reads a file. The bundle (`Outpost_OutpostServer.resources` on Linux, `Outpost_OutpostServer.bundle`
/// on macOS) is found through `Bundle.module`: beside the executable, or in the build directory it was built in.
/// Shipping the executable means shipping the bundle beside it (docs/server.md, "Shipping the executable").
enum AdminConsoleResource {
    static let subdirectory = "Console"

    /// The UTF-8 text of `Console/<name>.<ext>` in the target's resource bundle. A missing or unreadable file is a
    /// broken installation, not a runtime condition: it traps, naming the file and the bundle.
    static func text(of name: String, withExtension ext: String) -> String {
        let file = "\(subdirectory)/\(name).\(ext)"
        let bundle = Bundle.module
        guard let url = bundle.url(forResource: name, withExtension: ext, subdirectory: subdirectory) else {
            fatalError("The admin console's resource \(file) is missing from the bundle \(bundle.bundlePath); "
                + "ship the OutpostServer resource bundle beside the executable (docs/server.md)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            fatalError("Cannot read the admin console's resource \(file) at \(url.path): \(error)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            fatalError("The admin console's resource \(file) at \(url.path) is not UTF-8")
        }
        return text
    }
}
