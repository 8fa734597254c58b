//! Money as integer minor units with an ISO 4217 currency code.
//!
//! Amounts never use floating point; sums and products are checked ([`MoneyError::Overflow`] instead
//! of a wrap) and only amounts of one currency combine ([`MoneyError::CurrencyMismatch`]).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a currency code or an amount was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    /// The text is not three ASCII letters.
    #[error("currency must be three letters (ISO 4217)")]
    InvalidCurrency,
    /// Two amounts of different currencies were combined: left-hand currency, then right-hand.
    #[error("currencies differ: {0} and {1}")]
    CurrencyMismatch(CurrencyCode, CurrencyCode),
    /// The result does not fit `i64` cents.
    #[error("amount is out of range")]
    Overflow,
}

/// A currency code: three upper-case ASCII letters (`USD`), serialized as that text. Whether the
/// code is an *active* ISO 4217 currency is a reference-data question answered by the adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CurrencyCode([u8; 3]);

impl CurrencyCode {
    /// Accepts three ASCII letters in any case (surrounding blanks ignored) and normalises them to
    /// upper case; anything else is [`MoneyError::InvalidCurrency`].
    pub fn parse(text: &str) -> Result<Self, MoneyError> {
        let bytes = text.trim().as_bytes();
        match bytes {
            [a, b, c] if bytes.iter().all(u8::is_ascii_alphabetic) => {
                Ok(Self([a.to_ascii_uppercase(), b.to_ascii_uppercase(), c.to_ascii_uppercase()]))
            }
            _ => Err(MoneyError::InvalidCurrency),
        }
    }

    /// The code as text, upper case (`USD`).
    pub fn as_str(&self) -> &str {
        // Constructed only from ASCII letters, so always valid UTF-8.
        std::str::from_utf8(&self.0).unwrap_or("XXX")
    }
}

impl fmt::Display for CurrencyCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CurrencyCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CurrencyCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// An amount in minor units (cents) of one currency; `{"cents": 1250, "currency": "USD"}` on the wire.
/// Any `i64` is a valid amount (a refund or a difference may be negative); rules such as "a deal's
/// value is positive" belong to the aggregate that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    /// The amount in the currency's minor unit (1250 is 12.50 USD).
    pub cents: i64,
    /// The currency the amount is in.
    pub currency: CurrencyCode,
}

impl Money {
    /// `cents` minor units of `currency`.
    pub fn new(cents: i64, currency: CurrencyCode) -> Self {
        Self { cents, currency }
    }

    /// Nothing of `currency`: the start of a sum.
    pub fn zero(currency: CurrencyCode) -> Self {
        Self::new(0, currency)
    }

    /// Sum of two amounts of the same currency; [`MoneyError::CurrencyMismatch`] for two currencies,
    /// [`MoneyError::Overflow`] instead of a wrap.
    pub fn checked_add(self, other: Money) -> Result<Money, MoneyError> {
        self.same_currency(other)?;
        let cents = self.cents.checked_add(other.cents).ok_or(MoneyError::Overflow)?;
        Ok(Money::new(cents, self.currency))
    }

    /// `self − other`, same currency required; may be negative; [`MoneyError::Overflow`] instead of a
    /// wrap.
    pub fn checked_sub(self, other: Money) -> Result<Money, MoneyError> {
        self.same_currency(other)?;
        let cents = self.cents.checked_sub(other.cents).ok_or(MoneyError::Overflow)?;
        Ok(Money::new(cents, self.currency))
    }

    /// The amount times a count (a line's quantity); [`MoneyError::Overflow`] instead of a wrap.
    pub fn checked_mul(self, factor: i64) -> Result<Money, MoneyError> {
        let cents = self.cents.checked_mul(factor).ok_or(MoneyError::Overflow)?;
        Ok(Money::new(cents, self.currency))
    }

    fn same_currency(self, other: Money) -> Result<(), MoneyError> {
        if self.currency == other.currency {
            Ok(())
        } else {
            Err(MoneyError::CurrencyMismatch(self.currency, other.currency))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd() -> CurrencyCode {
        CurrencyCode::parse("usd").expect("valid")
    }

    #[test]
    fn currency_codes_normalise_and_reject() {
        assert_eq!(usd().as_str(), "USD");
        for bad in ["", "US", "USDX", "U1D", "ÜSD"] {
            assert_eq!(CurrencyCode::parse(bad), Err(MoneyError::InvalidCurrency), "{bad}");
        }
    }

    #[test]
    fn arithmetic_is_checked() {
        let ten = Money::new(10, usd());
        assert_eq!(ten.checked_add(ten), Ok(Money::new(20, usd())));
        assert_eq!(ten.checked_mul(3), Ok(Money::new(30, usd())));
        assert_eq!(ten.checked_sub(Money::new(15, usd())), Ok(Money::new(-5, usd())));
        assert_eq!(Money::new(i64::MAX, usd()).checked_add(ten), Err(MoneyError::Overflow));
        assert_eq!(Money::new(i64::MAX, usd()).checked_mul(2), Err(MoneyError::Overflow));
        let eur = Money::new(1, CurrencyCode::parse("EUR").expect("valid"));
        assert!(matches!(ten.checked_add(eur), Err(MoneyError::CurrencyMismatch(_, _))));
    }

    #[test]
    fn serializes_as_plain_code() {
        let json = serde_json::to_value(Money::new(5, usd())).expect("serializes");
        assert_eq!(json, serde_json::json!({"cents": 5, "currency": "USD"}));
    }
}
