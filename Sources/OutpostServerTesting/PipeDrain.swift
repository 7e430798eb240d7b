import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads what a child process writes into a pipe, on a thread of its own, until the pipe's end of file.
/// Outpost-only test support.
///
/// `FileHandle.readabilityHandler` would do the same with a dispatch source per pipe. Test runs start and stop
/// hundreds of child processes, and on Linux that source's creation and cancellation was the likely trigger of a
/// rare crash in libdispatch's manager thread (`_dispatch_event_loop_drain`). A plain thread blocked in `read(2)`
/// involves no dispatch source and ends by itself when the child closes its end.
public enum PipeDrain {
    /// Starts reading `handle` (the reading end of a pipe whose writing end the child holds). Each chunk goes to
    /// `onData`; `onEnd` runs once, after the last chunk, at end of file or on a read error.
    public static func start(_ handle: FileHandle, name: String = "pipe drain",
                             onData: @escaping @Sendable (Data) -> Void,
                             onEnd: @escaping @Sendable () -> Void = {}) {
        let box = HandleBox(handle)
        let thread = Thread {
            let descriptor = box.handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    onData(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            onEnd()
        }
        thread.name = name
        thread.start()
    }

    /// Keeps the file handle (and so its descriptor) alive for the reading thread.
    private final class HandleBox: @unchecked Sendable {
        // @unchecked Sendable: `handle` is only read by the reading thread after it is set.
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
    }
}
