import Hummingbird
import NIOCore
import OutpostCore

extension Response {
    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.text)))
    }
}
