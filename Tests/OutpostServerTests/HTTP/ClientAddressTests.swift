import NIOCore
import Testing

@testable import OutpostServer

@Suite struct ClientAddressTests {
    @Test func throttlingCountsIPv4AddressesAndIPv6Networks() throws {
        func key(_ ip: String) throws -> String? {
            OutpostRequestContext.throttlingAddress(of: try SocketAddress(ipAddress: ip, port: 4242))
        }
        #expect(try key("203.0.113.7") == "203.0.113.7")
        #expect(try key("::ffff:203.0.113.7") == "203.0.113.7", "IPv4-mapped addresses count as IPv4")
        #expect(try key("2001:db8:aa:bb:1:2:3:4") == "2001:db8:aa:bb::/64")
        #expect(try key("2001:db8:aa:bb:ffff::9") == key("2001:db8:aa:bb::1"), "one /64 is one client")
        #expect(try key("::1") == "0:0:0:0::/64")
        #expect(OutpostRequestContext.throttlingAddress(of: nil) == nil)
    }
}
