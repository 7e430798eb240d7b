import Foundation
import Synchronization

/// Notices commits made by other processes. One timer per watched file polls `PRAGMA data_version` on
/// a read-only connection of its own; when the version moves, every instance of the file in this
/// process refreshes on its run loop or queue (`RealmRegistry.externalChange`). A file is watched while
/// some instance of it has a scheduler (a thread's run loop or a queue), that is, while something can
/// refresh automatically or deliver notifications; the timer stops at the first tick after that.
final class FileWatcher: Sendable {
    static let shared = FileWatcher()

    /// How often each watched file is polled.
    static let interval: DispatchTimeInterval = .milliseconds(25)

    private let queue = DispatchQueue(label: "Outpost.FileWatcher")
    private let watches = Mutex<[String: Watch]>([:])

    /// One watched file: its timer and connection, used only on `queue` after creation.
    private final class Watch: @unchecked Sendable {  // `connection` and `version` are only touched on the watcher queue
        let timer: DispatchSourceTimer
        let connection: SQLiteConnection
        var version: Int64

        init(timer: DispatchSourceTimer, connection: SQLiteConnection, version: Int64) {
            self.timer = timer
            self.connection = connection
            self.version = version
        }
    }

    /// Starts watching `path` if an instance of it can deliver changes and it is not watched yet.
    func update(path: String) {
        guard RealmRegistry.shared.hasScheduledInstance(path: path) else { return }
        watches.withLock { watches in
            guard watches[path] == nil,
                let connection = try? SQLiteConnection(path: path, readOnly: true),
                case .integer(let version)? = try? connection.scalar("PRAGMA data_version")
            else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            watches[path] = Watch(timer: timer, connection: connection, version: version)
            timer.setEventHandler { [weak self] in self?.tick(path) }
            timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(5))
            timer.resume()
        }
    }

    /// Whether `path` is being watched (for tests).
    func isWatching(path: String) -> Bool {
        watches.withLock { $0[path] != nil }
    }

    private func tick(_ path: String) {
        guard let watch = watches.withLock({ $0[path] }) else { return }
        guard RealmRegistry.shared.hasScheduledInstance(path: path) else {
            watch.timer.cancel()
            watches.withLock { if $0[path] === watch { $0[path] = nil } }
            return
        }
        guard case .integer(let version)? = try? watch.connection.scalar("PRAGMA data_version"),
            version != watch.version
        else { return }
        watch.version = version
        RealmRegistry.shared.externalChange(path: path)
    }
}
