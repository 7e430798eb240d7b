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
        .executable(name: "outpost-demo", targets: ["outpost-demo"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Pure values, documents, schema and the query language. No I/O.
        .target(name: "OutpostCore"),
        // The client library users import: the local object database (and later sync and events).
        .target(name: "Outpost", dependencies: ["OutpostCore", "CSQLite"]),
        // The query language's shared fixtures and corpus (documents only; no client needed).
        .target(name: "OutpostCoreTesting", dependencies: ["OutpostCore"]),
        // Test support shipped as product code: temporary databases, fixtures.
        .target(name: "OutpostTesting", dependencies: ["Outpost"]),
        .executableTarget(name: "outpost-demo", dependencies: ["Outpost"]),
        // Benchmarks: each case runs beside its raw-SQLite baseline in the same process.
        .executableTarget(name: "outpost-bench", dependencies: ["Outpost", "CSQLite"], path: "Benchmarks/outpost-bench"),
        .testTarget(name: "OutpostCoreTests", dependencies: ["OutpostCore", "OutpostCoreTesting"]),
        .testTarget(name: "OutpostTests", dependencies: ["Outpost", "OutpostTesting", "OutpostCoreTesting"]),
    ]
)
