// `import Outpost` brings all of OutpostCore for now. Re-exporting only Realm Swift's names (`@_exported import
// struct OutpostCore.Decimal128` and the others of docs/public-api.md) hides the static operators no standard
// protocol declares (`Decimal128`'s `/`): Swift's operator lookup does not find them through a scoped import.
@_exported import OutpostCore
