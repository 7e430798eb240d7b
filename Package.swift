// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Outpost",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "OutpostCore", targets: ["OutpostCore"]),
        .library(name: "Outpost", targets: ["Outpost"]),
        .library(name: "OutpostTesting", targets: ["OutpostTesting"]),
        .library(name: "OutpostCoreTesting", targets: ["OutpostCoreTesting"]),
        .library(name: "OutpostServer", targets: ["OutpostServer"]),
        .library(name: "OutpostServerTesting", targets: ["OutpostServerTesting"]),
        .executable(name: "outpost-demo", targets: ["outpost-demo"]),
        .executable(name: "outpost-sync-demo", targets: ["outpost-sync-demo"]),
        .executable(name: "outpost-server", targets: ["outpost-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Pure values, documents, schema and the query language. No I/O.
        .target(name: "OutpostCore"),
        // The client library users import: the local object database, App and users, the sync client and the event library.
        // Sync (App, users, synced Realms) talks WebSocket through HummingbirdWSClient (pure SwiftNIO; URLSession's
        // WebSocket does not work on Linux, platform-notes §7) and plain HTTP through URLSession.
        .target(
            name: "Outpost",
            dependencies: [
                "OutpostCore", "CSQLite",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The query language's shared fixtures and corpus (documents only; no client needed).
        .target(name: "OutpostCoreTesting", dependencies: ["OutpostCore"]),
        // Test support shipped as product code: temporary databases, fixtures.
        .target(name: "OutpostTesting", dependencies: ["Outpost", "OutpostCoreTesting"]),
        // The sync server as a library: HTTP + WebSocket, auth, rules, sync sessions, storage drivers.
        .target(
            name: "OutpostServer",
            dependencies: [
                "OutpostCore", "CSQLite",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The admin console's page, script and style sheet, copied byte for byte into the target's resource
            // bundle (`Bundle.module`), which must ship beside the `outpost-server` executable (docs/server.md).
            resources: [.copy("Admin/Console"), .copy("Functions/Runtime")]
        ),
        // The server executable: parses arguments and configuration, runs the service. No logic.
        .executableTarget(
            name: "outpost-server",
            dependencies: [
                "OutpostServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Server test support shipped as product code: protocol test client, in-process server, PostgreSQL setup,
        // the storage conformance suite.
        .target(
            name: "OutpostServerTesting",
            dependencies: [
                "OutpostServer", "OutpostCoreTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(name: "outpost-demo", dependencies: ["Outpost"]),
        // The seed page's sync story against an embedded server: `swift run outpost-sync-demo`.
        .executableTarget(
            name: "outpost-sync-demo",
            dependencies: [
                "Outpost", "OutpostServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Test-only: a sync client in its own process, which the kill -9 tests of OutpostSyncTests start and kill.
        // Not a product.
        .executableTarget(name: "outpost-sync-probe", dependencies: ["Outpost"]),
        // Benchmarks: each case runs beside its raw-SQLite baseline in the same process.
        .executableTarget(name: "outpost-bench", dependencies: ["Outpost", "CSQLite"], path: "Benchmarks/outpost-bench"),
        // Server benchmarks: sync ingest beside direct inserts (SQLite C API, postgres-nio), fan-out latency, idle
        // session memory.
        .executableTarget(
            name: "outpost-server-bench",
            dependencies: [
                "OutpostServer", "OutpostServerTesting", "CSQLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Benchmarks/outpost-server-bench"
        ),
        // Sync client benchmarks: write → visible latency, upload and first open, each beside its baseline.
        .executableTarget(
            name: "outpost-sync-bench",
            dependencies: ["Outpost", "OutpostCore", "OutpostServerTesting", "CSQLite"],
            path: "Benchmarks/outpost-sync-bench"
        ),
        .testTarget(name: "OutpostCoreTests", dependencies: ["OutpostCore", "OutpostCoreTesting"]),
        .testTarget(name: "OutpostTests", dependencies: ["Outpost", "OutpostCore", "OutpostTesting", "OutpostCoreTesting"]),
        .testTarget(
            name: "OutpostServerTests", dependencies: ["OutpostServer", "OutpostServerTesting", "OutpostCoreTesting"],
            // Node.js programs the tests run from the source tree (`#filePath`): the function worker's own tests and
            // the admin console's browser driver.
            exclude: [
                "Functions/worker-test.js", "Functions/worker-test-host.js", "Functions/worker-test-bson.js",
                "Admin/Browser",
            ]),
        // The client's App, users, synced Realms and MongoClient against real servers (in-process and processes).
        .testTarget(
            name: "OutpostSyncTests",
            dependencies: [
                "Outpost", "OutpostCore", "OutpostTesting", "OutpostServer", "OutpostServerTesting", "OutpostCoreTesting",
            ]
        ),
        // The seed pages' samples in Swift 5 language mode (every other target builds in Swift 6 mode).
        .testTarget(
            name: "OutpostSwift5Tests",
            dependencies: ["Outpost", "OutpostTesting"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
