import Foundation

/// Small helpers for timing and percentiles.
enum Stats {
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }

    /// Resident memory of a process in KiB, from /proc.
    static func residentKiB(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? "")
        }
        return nil
    }

    static func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}
