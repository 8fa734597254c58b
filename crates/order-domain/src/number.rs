//! Order numbers `ORD-<year>-<6-digit sequence>`.
//!
//! The sequence comes from the database (one counter per year, allocated in the create transaction,
//! never `max()+1`); this type only formats and validates.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::OrderError;

/// An order's human-facing number, `ORD-<year>-<sequence>`, unique and never reused (not even after
/// a delete). Orders by year, then sequence; serializes as its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderNumber {
    year: i32,
    sequence: u32,
}

const INVALID: OrderError = OrderError::Validation { field: "order_number", message: "must look like ORD-YYYY-NNNNNN" };

impl OrderNumber {
    /// The text every order number starts with.
    pub const PREFIX: &'static str = "ORD";
    /// The last sequence a year can give: six digits, so at most 999 999 orders a year.
    pub const MAX_SEQUENCE: u32 = 999_999;

    /// `year` 1..=9999, `sequence` 1..=999 999 (a seventh digit would break the format); anything
    /// else is `VALIDATION_ERROR` on `order_number`.
    pub fn new(year: i32, sequence: u32) -> Result<Self, OrderError> {
        if !(1..=9999).contains(&year) {
            return Err(OrderError::Validation { field: "order_number", message: "year is out of range" });
        }
        if !(1..=Self::MAX_SEQUENCE).contains(&sequence) {
            return Err(OrderError::Validation { field: "order_number", message: "sequence is out of range" });
        }
        Ok(Self { year, sequence })
    }

    /// Accepts exactly `ORD-YYYY-NNNNNN` (the prefix in any case, surrounding blanks trimmed); anything
    /// else, sequence 000000 included, is `VALIDATION_ERROR` on `order_number`.
    pub fn parse(text: &str) -> Result<Self, OrderError> {
        let mut parts = text.trim().split('-');
        let (Some(prefix), Some(year), Some(sequence), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(INVALID);
        };
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !prefix.eq_ignore_ascii_case(Self::PREFIX) || !digits(year, 4) || !digits(sequence, 6) {
            return Err(INVALID);
        }
        let year = year.parse().map_err(|_| INVALID)?;
        let sequence = sequence.parse().map_err(|_| INVALID)?;
        Self::new(year, sequence).map_err(|_| INVALID)
    }

    /// The year of creation the number was allocated in (1..=9999).
    pub fn year(&self) -> i32 {
        self.year
    }

    /// The position within its year, from 1 (one counter per year).
    pub fn sequence(&self) -> u32 {
        self.sequence
    }
}

impl fmt::Display for OrderNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:04}-{:06}", Self::PREFIX, self.year, self.sequence)
    }
}

impl Serialize for OrderNumber {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OrderNumber {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_padding() {
        assert_eq!(OrderNumber::new(2026, 1).expect("valid").to_string(), "ORD-2026-000001");
        assert_eq!(OrderNumber::new(2026, 999_999).expect("valid").to_string(), "ORD-2026-999999");
    }

    #[test]
    fn rejects_out_of_range_parts() {
        assert!(OrderNumber::new(2026, 0).is_err());
        assert!(OrderNumber::new(2026, 1_000_000).is_err());
        assert!(OrderNumber::new(0, 1).is_err());
        assert!(OrderNumber::new(10_000, 1).is_err());
    }

    #[test]
    fn parses_valid_and_rejects_malformed() {
        let number = OrderNumber::parse(" ord-2026-000042 ").expect("valid");
        assert_eq!((number.year(), number.sequence()), (2026, 42));
        assert_eq!(number.to_string(), "ORD-2026-000042");
        for bad in [
            "",
            "ORD-2026-00001",
            "ORD-2026-0000001",
            "ORD-26-000001",
            "ABC-2026-000001",
            "ORD-2026-000000",
            "ORD-2026-00000a",
            "ORD-2026-000001-1",
            "ORD-+026-000001",
            "ORD 2026 000001",
        ] {
            assert_eq!(OrderNumber::parse(bad), Err(INVALID), "{bad:?}");
        }
    }

    #[test]
    fn serde_as_string() {
        let number = OrderNumber::new(2027, 7).expect("valid");
        let json = serde_json::to_value(number).expect("serializes");
        assert_eq!(json, serde_json::json!("ORD-2027-000007"));
        assert_eq!(serde_json::from_value::<OrderNumber>(json).expect("parses"), number);
        assert!(serde_json::from_value::<OrderNumber>(serde_json::json!("nope")).is_err());
    }
}
