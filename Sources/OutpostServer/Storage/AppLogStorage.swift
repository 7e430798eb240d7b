import Foundation

/// The server log of each app: what auth, sync, the Data API and the admin API record for the admin API to serve.
///
/// Its own protocol because it is append-only and independent of everything else stored (no transaction, no
/// account, no document refers to it), and because a component that only reports (the auth service's log) needs
/// nothing more. Part of ``ServerStorage``; every method is safe to call from many tasks at once.
public protocol AppLogStorage: Sendable {
    /// Appends a record to the server log.
    func appendLog(_ record: LogRecord) async throws
    /// Log records of the app, filtered by kind (nil: any) and time (`since <= time <= until`, either end
    /// optional): the newest `limit` matches, returned oldest first (newest last).
    func logs(appId: String, kind: String?, since: Date?, until: Date?, limit: Int) async throws -> [LogRecord]
    /// Deletes the app's log records from before `date` (``Housekeeping``); returns how many.
    @discardableResult func deleteLogs(appId: String, before date: Date) async throws -> Int
}
