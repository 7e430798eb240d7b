import OutpostCore

// `Decimal128`'s operators that no standard protocol declares, as global functions of this module: `import Outpost`
// re-exports `Decimal128` alone (Exports.swift), and Swift's operator lookup does not find a type's static operators
// through such a scoped import, so an app could not divide two values. Disfavoured, so that code which sees
// OutpostCore's static operators too (this module, a file importing both) picks those.

/// The quotient, rounded to 34 digits half to even (`Decimal128`'s own `/`).
@_disfavoredOverload
public func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { Decimal128.quotient(lhs, rhs) }

/// Divides in place (`Decimal128`'s own `/=`).
@_disfavoredOverload
public func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = Decimal128.quotient(lhs, rhs) }

/// The negation (`Decimal128`'s own prefix `-`).
@_disfavoredOverload
public prefix func - (operand: Decimal128) -> Decimal128 { Decimal128.negation(operand) }
