import Foundation

extension Realm {
    /// An error from opening or writing a Realm, with Realm's error codes, so that
    /// `catch Realm.Error.schemaMismatch` and `error.code == .fileAccess` work as with Realm.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible, LocalizedError, CustomNSError {
        /// Realm's `RLMError` codes.
        public enum Code: Int, Sendable {
            case fail = 1
            case fileAccess = 2
            case filePermissionDenied = 3
            case fileExists = 4
            case fileNotFound = 5
            case fileFormatUpgradeRequired = 6
            case incompatibleLockFile = 8
            case addressSpaceExhausted = 9
            case schemaMismatch = 10
            case alreadyOpen = 12
            case invalidInput = 13
            case outOfDiskSpace = 14
            case incompatibleSession = 15
            case unsupportedFileFormatVersion = 16
            case multipleSyncAgents = 17
            case subscriptionFailed = 18
            case fileOperationFailed = 19
            case invalidDatabase = 20
            case incompatibleHistories = 21
            case noSubscriptionForWrite = 22
        }

        public let code: Code
        /// What went wrong and where (type, property, value or path).
        public let message: String
        /// The file involved, when there is one.
        public let fileURL: URL?

        public init(_ code: Code, _ message: String, fileURL: URL? = nil) {
            self.code = code
            self.message = message
            self.fileURL = fileURL
        }

        /// An error with `code`, as Realm's errors are made: the message from `NSLocalizedDescriptionKey` and the
        /// file from `NSFilePathErrorKey` when `userInfo` has them.
        public init(_ code: Code, userInfo: [String: Any] = [:]) {
            self.init(code, userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)",
                      fileURL: (userInfo[NSFilePathErrorKey] as? String).map(URL.init(fileURLWithPath:)))
        }

        public var description: String { message }
        public var errorDescription: String? { message }
        public var localizedDescription: String { message }

        /// Realm's error domain: `(error as NSError).domain == "io.realm"` and `.code` is the `RLMError` code.
        public static var errorDomain: String { "io.realm" }
        public var errorCode: Int { code.rawValue }
        public var errorUserInfo: [String: Any] {
            var info: [String: Any] = [NSLocalizedDescriptionKey: message]
            if let fileURL { info[NSFilePathErrorKey] = fileURL.path }
            return info
        }

        public static let fail = Code.fail
        public static let fileAccess = Code.fileAccess
        public static let filePermissionDenied = Code.filePermissionDenied
        public static let fileExists = Code.fileExists
        public static let fileNotFound = Code.fileNotFound
        public static let fileFormatUpgradeRequired = Code.fileFormatUpgradeRequired
        public static let incompatibleLockFile = Code.incompatibleLockFile
        public static let addressSpaceExhausted = Code.addressSpaceExhausted
        public static let schemaMismatch = Code.schemaMismatch
        public static let alreadyOpen = Code.alreadyOpen
        public static let invalidInput = Code.invalidInput
        public static let outOfDiskSpace = Code.outOfDiskSpace
        public static let incompatibleSession = Code.incompatibleSession
        public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
        public static let multipleSyncAgents = Code.multipleSyncAgents
        public static let subscriptionFailed = Code.subscriptionFailed
        public static let noSubscriptionForWrite = Code.noSubscriptionForWrite
        public static let fileOperationFailed = Code.fileOperationFailed
        public static let invalidDatabase = Code.invalidDatabase
        public static let incompatibleHistories = Code.incompatibleHistories
    }
}

extension Realm.Error.Code {
    /// Lets `catch Realm.Error.fileAccess { … }` match by code.
    public static func ~= (code: Realm.Error.Code, error: any Swift.Error) -> Bool {
        (error as? Realm.Error)?.code == code
    }
}
