import ArgumentParser
import Foundation
import Logging
import OutpostServer
import ServiceLifecycle

/// `outpost-server`: serves (the default subcommand, so `outpost-server --port 9090` serves) or imports an App
/// Services app (`outpost-server import-app`).
@main
struct OutpostServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outpost-server",
        abstract: "The Outpost sync server: auth, Device Sync over WebSocket, Data API.",
        discussion: """
            With no arguments it serves a development app (id 'outpost-dev', anonymous and email/password login, \
            Flexible Sync, development mode) on http://127.0.0.1:9090 with its data in ./outpost-data.
            """,
        subcommands: [ServeCommand.self, ImportAppCommand.self, ImportDataCommand.self, ExportDataCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
