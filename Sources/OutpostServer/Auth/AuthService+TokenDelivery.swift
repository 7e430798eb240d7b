import Foundation
import OutpostCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AuthService {
    /// How long the token webhook has to answer.
    static let tokenWebhookTimeout: TimeInterval = 10

    /// Hands a confirmation or password reset token to whoever mails it: the app's token webhook when it has one
    /// (`auth.email_password.token_webhook_url`, Outpost-only), else the server log (kind `auth`). The webhook gets
    /// `POST {"app_id", "type": "confirmation"|"reset", "email", "token", "tokenId"}` in the background (the client's
    /// request does not wait for it, as App Services does not wait for its email); the log says whether it answered
    /// 2xx, without the token. A token whose delivery failed is asked for again (resend, or a new reset request).
    func deliverToken(_ kind: String, email: String, token: String, tokenId: String) async {
        guard let webhook = app.auth.emailPasswordTokenWebhook, let url = URL(string: webhook) else {
            let what = kind == "reset" ? "password reset" : "confirmation"
            await log("info", "\(what) for \(email): token=\(token) tokenId=\(tokenId)",
                      details: .document(["email": .string(email), "token": .string(token), "tokenId": .string(tokenId)]))
            return
        }
        var request = URLRequest(url: url, timeoutInterval: Self.tokenWebhookTimeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object([
            "app_id": .string(app.appId), "type": .string(kind), "email": .string(email), "token": .string(token),
            "tokenId": .string(tokenId),
        ]).text.utf8)
        let service = self
        Task.detached {
            let status: Int
            do {
                let session = URLSession(configuration: .ephemeral)
                defer { session.finishTasksAndInvalidate() }
                let (_, response) = try await session.data(for: request)
                status = (response as? HTTPURLResponse)?.statusCode ?? 0
            } catch {
                await service.log("error", "the token webhook did not take the \(kind) token for \(email): \(error)")
                return
            }
            if (200..<300).contains(status) {
                await service.log("info", "\(kind) token for \(email) sent to the token webhook")
            } else {
                await service.log("error", "the token webhook answered \(status) to the \(kind) token for \(email)")
            }
        }
    }
}
