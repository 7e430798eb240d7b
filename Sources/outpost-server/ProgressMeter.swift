import Foundation
import OutpostServer

/// Progress on a terminal (one line, redrawn: documents, bytes, rate, time left) or, otherwise, a plain line every
/// few seconds.
final class ProgressMeter {
    let isTerminal: Bool
    let started = Date()
    var lastLine = Date.distantPast

    init(isTerminal: Bool) { self.isTerminal = isTerminal }

    func show(_ progress: DocumentImporter.Progress) {
        let now = Date()
        guard isTerminal || now.timeIntervalSince(lastLine) >= 5 else { return }
        lastLine = now
        let line = Self.text(progress, elapsed: now.timeIntervalSince(started))
        if isTerminal { print("\r\u{1B}[K" + line, terminator: "") } else { print(line) }
        fflush(nil)
    }

    func finish(_ progress: DocumentImporter.Progress, collection: String) {
        if isTerminal { print("\r\u{1B}[K", terminator: "") }
        print(Self.text(progress, elapsed: Date().timeIntervalSince(started)))
        print("Imported \(progress.documents) documents into \(collection).")
    }

    static func text(_ p: DocumentImporter.Progress, elapsed: TimeInterval) -> String {
        let total = max(p.totalBytes, 1)
        let percent = Int(Double(p.bytes) * 100 / Double(total))
        let width = 20
        let filled = min(width, percent * width / 100)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let done = Double(p.bytes - p.resumedFrom)
        let rate = elapsed > 0 ? done / elapsed : 0
        let left = rate > 0 ? Int(Double(p.totalBytes - p.bytes) / rate) : 0
        let megabytes = { (b: Int64) in String(format: "%.1f", Double(b) / 1_048_576) }
        return "[\(bar)] \(percent)% · \(p.documents) documents · \(megabytes(p.bytes)) of \(megabytes(p.totalBytes)) MB"
            + " · \(String(format: "%.1f", rate / 1_048_576)) MB/s · ETA \(left / 60):\(String(format: "%02d", left % 60))"
    }
}
