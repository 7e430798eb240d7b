import Foundation
import NIOCore

extension OutpostRequestContext {
    /// The client's address as auth throttling counts it: an IPv4 address (also when it arrives IPv4-mapped on an
    /// IPv6 socket), or the /64 network of an IPv6 address, since one IPv6 client usually holds a whole /64. Nil for
    /// a Unix socket.
    static func throttlingAddress(of address: SocketAddress?) -> String? {
        switch address {
        case .v4?:
            return address?.ipAddress
        case .v6(let v6)?:
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            let groups = stride(from: 0, to: 8, by: 2).map { i in
                String(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]), radix: 16)
            }
            return groups.joined(separator: ":") + "::/64"
        default:
            return nil
        }
    }
}
