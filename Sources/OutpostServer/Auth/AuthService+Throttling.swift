import Foundation
import OutpostCore

extension AuthService {
    /// Spends one attempt of each key before any password is hashed; refused attempts throw 429
    /// (``AuthError/Code/tooManyRequests``) and cost no hashing. The first refusal of a key goes to the server log
    /// (kind `auth`), later ones do not, so a flood of refused attempts cannot flood the log.
    ///
    /// - Parameter action: what was attempted, for the log ("local-userpass login of alice@example.com").
    func admit(_ keys: [AuthThrottling.Key], action: String, clientAddress: String?) async throws(AuthError) {
        guard let refusal = throttling.spend(keys, now: clock()) else { return }
        let reason =
            switch refusal.limit {
            case .account: "too many failed logins for this account"
            case .address: "too many failed logins from this address"
            case .newUsers: "too many new users from this address"
            }
        if refusal.isFirst {
            let address = clientAddress ?? "unknown"
            await log(
                "warning", "throttled \(action) from \(address): \(reason); retry after \(refusal.retryAfterSeconds) s",
                details: .document([
                    "limit": .string(refusal.limit.rawValue), "address": .string(address),
                    "retryAfterSeconds": .int(Int64(refusal.retryAfterSeconds)),
                ]))
        }
        throw AuthError(.tooManyRequests, "\(reason); try again later", retryAfterSeconds: refusal.retryAfterSeconds)
    }

    /// The key of a failed login from the client's address; none when the address is unknown.
    static func addressKeys(_ clientAddress: String?) -> [AuthThrottling.Key] {
        clientAddress.map { [AuthThrottling.Key(limit: .address, name: $0)] } ?? []
    }
}
