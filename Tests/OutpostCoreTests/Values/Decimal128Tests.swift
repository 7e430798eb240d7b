import Foundation
import OutpostCore
import Testing

@Suite struct Decimal128Tests {
    /// Input text and its printed form. Expected output computed with Python's `decimal` module
    /// (decimal128 context), whose to-scientific-string rules Outpost follows.
    static let parsePrint: [(String, String)] = [
        ("1.5", "1.5"),
        ("-0.001", "-0.001"),
        ("1e10", "1E+10"),
        ("1E+10", "1E+10"),
        ("1.23E-7", "1.23E-7"),
        ("0", "0"),
        ("-0", "-0"),
        ("0.00", "0.00"),
        ("0E-3", "0.000"),
        ("0E+3", "0E+3"),
        ("1.00", "1.00"),
        ("1500", "1500"),
        ("15E2", "1.5E+3"),
        (".5", "0.5"),
        ("5.", "5"),
        ("0.000001", "0.000001"),
        ("0.0000001", "1E-7"),
        ("123456789012345678901234567890.1234", "123456789012345678901234567890.1234"),
        ("1234567890123456789012345678901234", "1234567890123456789012345678901234"),
        ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
        ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
        ("1234567890123456789012345678901234500001", "1.234567890123456789012345678901235E+39"),
        ("9999999999999999999999999999999999.5", "1.000000000000000000000000000000000E+34"),
        ("1E6111", "1E+6111"),
        ("1E6112", "1.0E+6112"),
        ("1E6144", "1.000000000000000000000000000000000E+6144"),
        ("1E6145", "Inf"),
        ("1E-6176", "1E-6176"),
        ("1E-6177", "0E-6176"),
        ("5E-6177", "0E-6176"),
        ("6E-6177", "1E-6176"),
        ("15E-6177", "2E-6176"),
        ("1.234E-6175", "1.2E-6175"),
        ("0E-7000", "0E-6176"),
        ("0E+7000", "0E+6111"),
        ("-1e-7000", "-0E-6176"),
        ("+12.340", "12.340"),
        ("0.1234567890123456789012345678901234567890", "0.1234567890123456789012345678901235"),
        ("00012.5000", "12.5000"),
        ("-1E-0", "-1"),
        ("1e-00", "1"),
        ("1E+999999999999", "Inf"),
        ("1E-999999999999", "0E-6176"),
        ("0.00000000000000000000000000000000000000000001", "1E-44"),
        ("NaN", "NaN"),
        ("nan", "NaN"),
        ("-NaN", "NaN"),
        ("sNaN", "NaN"),
        ("Inf", "Inf"),
        ("inf", "Inf"),
        ("Infinity", "Inf"),
        ("+Infinity", "Inf"),
        ("-Inf", "-Inf"),
        ("-infinity", "-Inf"),
    ]

    @Test(arguments: parsePrint)
    func parseAndPrint(input: String, printed: String) throws {
        let value = try Decimal128(string: input)
        #expect(value.stringValue == printed)
        // The printed form parses back to the identical encoding (except the NaN sign and kind).
        let reparsed = try Decimal128(string: printed)
        if !value.isNaN {
            #expect(reparsed.low == value.low && reparsed.high == value.high)
        }
    }

    @Test func bidEncodingMatchesBSON() throws {
        // Vectors from the BSON decimal128 specification's test corpus.
        let vectors: [(String, UInt64, UInt64)] = [
            ("0", 0x3040_0000_0000_0000, 0),
            ("-0", 0xB040_0000_0000_0000, 0),
            ("1", 0x3040_0000_0000_0000, 1),
            ("-1", 0xB040_0000_0000_0000, 1),
            ("0.1", 0x303E_0000_0000_0000, 1),
            ("1E-6176", 0, 1),
            ("9.999999999999999999999999999999999E+6144", 0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
            ("Inf", 0x7800_0000_0000_0000, 0),
            ("-Inf", 0xF800_0000_0000_0000, 0),
            ("NaN", 0x7C00_0000_0000_0000, 0),
            ("sNaN", 0x7E00_0000_0000_0000, 0),
        ]
        for (text, high, low) in vectors {
            let value = try Decimal128(string: text)
            #expect(value.high == high, "\(text)")
            #expect(value.low == low, "\(text)")
            #expect(value.bid == (low: low, high: high))
            let decoded = Decimal128(low: low, high: high)
            #expect(decoded.stringValue == value.stringValue)
        }
        #expect(Decimal128().stringValue == "0")
        #expect(Decimal128().high == 0x3040_0000_0000_0000)
    }

    @Test func nonCanonicalEncodingsReadAsZero() {
        // Coefficient larger than 10^34 - 1 in the normal form.
        let tooLarge = Decimal128(low: .max, high: 0x3041_FFFF_FFFF_FFFF)
        #expect(tooLarge.isZero)
        #expect(tooLarge.stringValue == "0")
        #expect(tooLarge == 0)
        // The "large coefficient" form (combination bits 11) is always non-canonical.
        let largeForm = Decimal128(low: 0, high: 0x6C11_0000_0000_0000)
        #expect(largeForm.isZero)
        #expect(largeForm.isFinite)
        #expect(largeForm.stringValue == "0E+2")
    }

    @Test func classification() throws {
        let nan = try Decimal128(string: "NaN")
        #expect(nan.isNaN && !nan.isSignaling && !nan.isInfinite && !nan.isFinite)
        let snan = try Decimal128(string: "-sNaN")
        #expect(snan.isNaN && snan.isSignaling && snan.isSignMinus)
        let inf = try Decimal128(string: "-Infinity")
        #expect(inf.isInfinite && !inf.isNaN && inf.isSignMinus && !inf.isFinite)
        let one: Decimal128 = 1
        #expect(one.isFinite && !one.isZero && !one.isSignMinus && !one.isNaN && !one.isInfinite)
        #expect(Decimal128("0E+5").isZero)
    }

    static let invalid: [(String, String, Int)] = [
        ("", "Invalid Decimal128 string '': expected a digit at offset 0", 0),
        ("abc", "Invalid Decimal128 string 'abc': expected a number, NaN or Inf, found 'a' at offset 0", 0),
        ("1.2.3", "Invalid Decimal128 string '1.2.3': unexpected '.' at offset 3", 3),
        ("1e", "Invalid Decimal128 string '1e': expected exponent digits at offset 2", 2),
        ("1e+", "Invalid Decimal128 string '1e+': expected exponent digits at offset 3", 3),
        ("1ex", "Invalid Decimal128 string '1ex': expected exponent digits, found 'x' at offset 2", 2),
        ("1e5.0", "Invalid Decimal128 string '1e5.0': expected exponent digits, found '.' at offset 3", 3),
        ("-", "Invalid Decimal128 string '-': expected a digit at offset 1", 1),
        (".", "Invalid Decimal128 string '.': expected a digit at offset 1", 1),
        (" 1", "Invalid Decimal128 string ' 1': expected a number, NaN or Inf, found ' ' at offset 0", 0),
        ("1 ", "Invalid Decimal128 string '1 ': unexpected ' ' at offset 1", 1),
        ("e5", "Invalid Decimal128 string 'e5': expected a digit before the exponent at offset 0", 0),
        ("€12", "Invalid Decimal128 string '€12': expected a number, NaN or Inf, found '€' at offset 0", 0),
        ("12€", "Invalid Decimal128 string '12€': unexpected '€' at offset 2", 2),
        ("--1", "Invalid Decimal128 string '--1': expected a number, NaN or Inf, found '-' at offset 1", 1),
        ("NaNx", "Invalid Decimal128 string 'NaNx': expected a number, NaN or Inf, found 'N' at offset 0", 0),
        ("1,5", "Invalid Decimal128 string '1,5': unexpected ',' at offset 1", 1),
    ]

    @Test(arguments: invalid)
    func invalidStringsThrowTypedErrors(text: String, message: String, position: Int) {
        #expect {
            try Decimal128(string: text)
        } throws: { error in
            guard let error = error as? ValueError else { return false }
            return error.code == .invalidDecimal128String && error.message == message
                && error.description == message && error.text == text && error.position == position
        }
    }

    @Test func errorCodeMatchesInCatchClause() {
        var matched = false
        do {
            _ = try Decimal128(string: "1..")
        } catch ValueError.Code.invalidDecimal128String {
            matched = true
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(matched)
    }

    @Test func equalityAcrossExponents() throws {
        let pairs: [(String, String)] = [
            ("1.0", "1.00"), ("1", "1.000"), ("10", "1E+1"), ("100E-2", "1"), ("0", "-0"), ("0E-6176", "0E+6111"),
            ("-2.50", "-2.5"), ("1.000000000000000000000000000000000E+6144", "1E+6144"), ("Inf", "Infinity"),
        ]
        for (a, b) in pairs {
            let x = try Decimal128(string: a)
            let y = try Decimal128(string: b)
            #expect(x == y, "\(a) == \(b)")
            #expect(!(x < y) && !(y < x) && x <= y && x >= y)
            #expect(x.hashValue == y.hashValue, "hash(\(a)) == hash(\(b))")
        }
        #expect(Set(["1.0", "1.00", "1", "2"].map { Decimal128(stringLiteral: $0) }).count == 2)
    }

    @Test func ordering() throws {
        let ascending = try [
            "-Inf", "-9.999999999999999999999999999999999E+6144", "-1E+10", "-1.5", "-1E-6176", "0",
            "1E-6176", "0.1", "0.10000000001", "0.5", "1", "1.000000000000000000000000000000001", "9.99", "10",
            "1E+10", "12345678901234567890123456789012345", "9.999999999999999999999999999999999E+6144", "Inf",
        ].map(Decimal128.init(string:))
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                #expect((a < b) == (i < j), "\(a) < \(b)")
                #expect((a > b) == (i > j), "\(a) > \(b)")
                #expect((a == b) == (i == j), "\(a) == \(b)")
            }
        }
        #expect(ascending.shuffled().sorted() == ascending)
        #expect(Decimal128("0.1") < Decimal128("0.10000000001"))
        #expect(Decimal128("-0") < Decimal128("1E-6176"))
        #expect(Decimal128("-1E-6176") < Decimal128("-0"))
    }

    @Test func nanIsUnordered() {
        let nan = Decimal128.nan
        for other in [nan, 0, 1, -1, .infinity, -.infinity] as [Decimal128] {
            #expect(!(nan == other))
            #expect(nan != other)
            #expect(!(nan < other) && !(other < nan))
            #expect(!(nan <= other) && !(nan >= other) && !(nan > other))
        }
        // Hashing stays usable: all NaNs hash alike.
        #expect(Decimal128.nan.hashValue == Decimal128.signalingNaN.hashValue)
    }

    @Test func literals() {
        let integer: Decimal128 = 42
        #expect(integer.stringValue == "42")
        let negative: Decimal128 = -7
        #expect(negative.stringValue == "-7")
        let float: Decimal128 = 1.1
        #expect(float.stringValue == "1.1")
        #expect(float == Decimal128("1.1"))
        let small: Decimal128 = 0.000015
        #expect(small.stringValue == "0.000015")
        let whole: Decimal128 = 2.0
        #expect(whole.stringValue == "2")
        let big: Decimal128 = 1e300
        #expect(big.stringValue == "1E+300")
        let text: Decimal128 = "12345678901234567890.0987654321"
        #expect(text.stringValue == "12345678901234567890.0987654321")
    }

    @Test func integerAndDoubleInitializers() {
        #expect(Decimal128(Int.max).stringValue == "9223372036854775807")
        #expect(Decimal128(Int64.min).stringValue == "-9223372036854775808")
        #expect(Decimal128(UInt64.max).stringValue == "18446744073709551615")
        #expect(Decimal128(0.1).stringValue == "0.1")
        #expect(Decimal128(-0.0).stringValue == "-0")
        #expect(Decimal128(1500.0).stringValue == "1500")
        #expect(Decimal128(1.0 / 3.0).stringValue == "0.3333333333333333")
        #expect(Decimal128(5e-324).stringValue == "5E-324")
        #expect(Decimal128(Double.nan).isNaN)
        #expect(Decimal128(-Double.infinity).stringValue == "-Inf")
        #expect(Decimal128(sign: .minus, coefficient: 15, exponent: -1).stringValue == "-1.5")
        #expect(Decimal128(coefficient: UInt128.max, exponent: 0).stringValue
            == "3.402823669209384634633746074317682E+38")
        #expect(Decimal128(coefficient: 1, exponent: 7000).stringValue == "Inf")
    }

    @Test func doubleValue() throws {
        let cases: [(String, Double)] = [
            ("0.1", 0.1), ("1.5", 1.5), ("-2.25", -2.25), ("1E+308", 1e308), ("1E+309", .infinity),
            ("-1E+400", -.infinity), ("1E-400", 0), ("0.3333333333333333333333333333333333", 1.0 / 3.0),
            ("123456789012345678901234567890", 123456789012345678901234567890.0), ("Inf", .infinity),
        ]
        for (text, expected) in cases {
            #expect(try Decimal128(string: text).doubleValue == expected, "\(text)")
        }
        #expect(try Decimal128(string: "-0").doubleValue.sign == .minus)
        #expect(Decimal128.nan.doubleValue.isNaN)
    }

    @Test func int64Value() throws {
        let cases: [(String, Int64?)] = [
            ("0", 0), ("-0", 0), ("42", 42), ("2.50E+1", 25), ("1.000", 1), ("-7.0", -7), ("1.5", nil),
            ("9223372036854775807", .max), ("9223372036854775808", nil), ("-9223372036854775808", .min),
            ("-9223372036854775809", nil), ("1E+18", 1_000_000_000_000_000_000), ("1E+19", nil),
            ("1E+6000", nil), ("0E+6000", 0), ("1E-6176", nil), ("NaN", nil), ("Inf", nil),
            ("92233720368547758070E-1", .max),
        ]
        for (text, expected) in cases {
            #expect(try Decimal128(string: text).int64Value == expected, "\(text)")
        }
    }

    /// Encoded as Realm's text (`description`, what Realm's `Codable` conformance writes); decoded equal in value.
    @Test func codableRoundTripAsString() throws {
        let values = try ["1.50", "-0", "1E+10", "NaN", "-Inf", "0.3333333333333333333333333333333333", "1234567890e123"]
            .map(Decimal128.init(string:))
        let data = try JSONEncoder().encode(values)
        #expect(String(decoding: data, as: UTF8.self)
            == #"["1.5","-0","1E10","NaN","-Inf","+3333333333333333333333333333333333E-34","1.23456789E132"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: data)
        for (a, b) in zip(values, decoded) {
            #expect(a.isNaN ? b.isNaN : a == b, "\(a) → \(b)")
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Decimal128.self, from: Data(#""1.2.3""#.utf8))
        }
    }

    /// `description` is Realm's text (realm-core's digits, trailing zeros after the point dropped); `stringValue`
    /// keeps the exponent.
    @Test func descriptionIsRealmsText() throws {
        let sum = try Decimal128(string: "1.234567") + Decimal128(string: "9.876543")
        #expect(sum.stringValue == "11.111110")
        #expect(sum.description == "11.11111")
        #expect((try Decimal128(string: "2.5") - Decimal128(string: "3.5")).description == "-1")
        #expect(try Decimal128(string: "1234567890e123").description == "1.23456789E132")
        #expect(try Decimal128(string: "0.001").description == "1E-3")
        #expect(try Decimal128(string: "150").description == "150")
        #expect(try Decimal128(string: "1.50").description == "1.5")
        #expect(Decimal128.nan.description == "NaN")
        #expect(Decimal128.infinity.description == "Inf")
    }

    /// Realm's null decimal (`NSNull`, nil) is a NaN that reports itself signaling; JSON numbers decode.
    @Test func nullIsASignalingNaNAndNumbersDecode() throws {
        #expect(Decimal128(value: NSNull()).isNaN && Decimal128(value: NSNull()).isSignaling)
        #expect(Decimal128(value: Optional<Int>.none as Any).isSignaling)
        #expect(!Decimal128(value: "not a number").isSignaling && Decimal128(value: "not a number").isNaN)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: Data("[2.2, \"1.5e2\"]".utf8))
        #expect(decoded == [try Decimal128(string: "2.2"), try Decimal128(string: "150")])
    }
}
