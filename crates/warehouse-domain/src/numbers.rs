//! Document numbers: purchase orders `PO-<year>-<6 digits>`, transfers `TR-<year>-<6 digits>`.
//!
//! The sequence comes from the database (one counter per kind and year, allocated inside the create
//! transaction with `INSERT … ON CONFLICT (kind, year) DO UPDATE SET last = last + 1 RETURNING last`,
//! never `max()+1`), so numbers stay unique with many creators at once and are never reused, not even
//! after a delete; these types only format and validate. Both follow order-domain's `OrderNumber`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::WarehouseError;

/// The year and sequence both kinds of number are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Sequenced {
    year: i32,
    sequence: u32,
}

/// The last sequence a year can give: six digits, so at most 999 999 documents of a kind a year.
pub const MAX_SEQUENCE: u32 = 999_999;

impl Sequenced {
    fn new(year: i32, sequence: u32, field: &'static str) -> Result<Self, WarehouseError> {
        if !(1..=9999).contains(&year) {
            return Err(WarehouseError::Validation { field, message: "year is out of range" });
        }
        if !(1..=MAX_SEQUENCE).contains(&sequence) {
            return Err(WarehouseError::Validation { field, message: "sequence is out of range" });
        }
        Ok(Self { year, sequence })
    }

    /// Exactly `<prefix>-YYYY-NNNNNN`, the prefix in any case, surrounding blanks trimmed.
    fn parse(text: &str, prefix: &str, invalid: WarehouseError) -> Result<Self, WarehouseError> {
        let mut parts = text.trim().split('-');
        let (Some(head), Some(year), Some(sequence), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid);
        };
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !head.eq_ignore_ascii_case(prefix) || !digits(year, 4) || !digits(sequence, 6) {
            return Err(invalid);
        }
        let year = year.parse().map_err(|_| invalid.clone())?;
        let sequence = sequence.parse().map_err(|_| invalid.clone())?;
        Self::new(year, sequence, "number").map_err(|_| invalid)
    }

    fn write(&self, prefix: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{prefix}-{:04}-{:06}", self.year, self.sequence)
    }
}

macro_rules! document_number {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $field:literal, $shape:literal) => {
        $(#[$doc])*
        ///
        /// Orders by year, then sequence; serializes as its text, and deserializing parses.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Sequenced);

        impl $name {
            /// The text every number of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            #[doc = concat!("`year` 1..=9999, `sequence` 1..=[`MAX_SEQUENCE`]; anything else is `VALIDATION_ERROR` on `", $field, "`.")]
            pub fn new(year: i32, sequence: u32) -> Result<Self, WarehouseError> {
                Sequenced::new(year, sequence, $field).map(Self)
            }

            #[doc = concat!("Accepts exactly `", $shape, "` (the prefix in any case, surrounding blanks trimmed); anything else, sequence 000000 included, is `VALIDATION_ERROR` on `", $field, "`.")]
            pub fn parse(text: &str) -> Result<Self, WarehouseError> {
                let invalid = WarehouseError::Validation { field: $field, message: concat!("must look like ", $shape) };
                Sequenced::parse(text, Self::PREFIX, invalid).map(Self)
            }

            /// The year of creation the number was allocated in (1..=9999).
            pub fn year(&self) -> i32 {
                self.0.year
            }

            /// The position within its year, from 1 (one counter per kind and year).
            pub fn sequence(&self) -> u32 {
                self.0.sequence
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(Self::PREFIX, f)
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
    };
}

document_number!(
    /// A purchase order's number, `PO-<year>-<sequence>`, unique and never reused.
    PurchaseOrderNumber,
    "PO",
    "po_number",
    "PO-YYYY-NNNNNN"
);

document_number!(
    /// A transfer's number, `TR-<year>-<sequence>`, unique and never reused.
    TransferNumber,
    "TR",
    "transfer_number",
    "TR-YYYY-NNNNNN"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_padding() {
        assert_eq!(PurchaseOrderNumber::new(2026, 1).expect("valid").to_string(), "PO-2026-000001");
        assert_eq!(PurchaseOrderNumber::new(2026, 999_999).expect("valid").to_string(), "PO-2026-999999");
        assert_eq!(TransferNumber::new(2027, 42).expect("valid").to_string(), "TR-2027-000042");
    }

    #[test]
    fn rejects_out_of_range_parts() {
        for (year, sequence) in [(2026, 0), (2026, 1_000_000), (0, 1), (10_000, 1)] {
            let field = |e: WarehouseError| e.field();
            assert_eq!(PurchaseOrderNumber::new(year, sequence).map_err(field), Err(Some("po_number")));
            assert_eq!(TransferNumber::new(year, sequence).map_err(field), Err(Some("transfer_number")));
        }
    }

    #[test]
    fn parses_valid_and_rejects_malformed() {
        let number = PurchaseOrderNumber::parse(" po-2026-000042 ").expect("valid");
        assert_eq!((number.year(), number.sequence()), (2026, 42));
        assert_eq!(number.to_string(), "PO-2026-000042");
        let transfer = TransferNumber::parse("tr-2026-000007").expect("valid");
        assert_eq!(transfer.to_string(), "TR-2026-000007");
        for bad in [
            "",
            "PO-2026-00001",
            "PO-2026-0000001",
            "PO-26-000001",
            "TR-2026-000001",
            "ORD-2026-000001",
            "PO-2026-000000",
            "PO-2026-00000a",
            "PO-2026-000001-1",
            "PO-+026-000001",
            "PO 2026 000001",
        ] {
            assert_eq!(PurchaseOrderNumber::parse(bad).map_err(|e| e.field()), Err(Some("po_number")), "{bad:?}");
        }
        assert!(TransferNumber::parse("PO-2026-000001").is_err());
    }

    #[test]
    fn serde_as_string_and_ordered() {
        let number = PurchaseOrderNumber::new(2027, 7).expect("valid");
        let json = serde_json::to_value(number).expect("serializes");
        assert_eq!(json, serde_json::json!("PO-2027-000007"));
        assert_eq!(serde_json::from_value::<PurchaseOrderNumber>(json).expect("parses"), number);
        assert!(serde_json::from_value::<TransferNumber>(serde_json::json!("nope")).is_err());
        let earlier = PurchaseOrderNumber::new(2026, 999_999).expect("valid");
        assert!(earlier < number, "by year, then sequence");
    }
}
