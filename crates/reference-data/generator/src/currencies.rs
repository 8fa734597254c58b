//! ISO 4217 currencies from the `iso_currency` crate.

use iso_currency::{Currency as Iso, IntoEnumIterator};

#[derive(serde::Serialize)]
pub struct Currency {
    pub code: String,
    pub name: String,
    pub symbol: String,
    pub decimal_digits: i16,
}

/// Active circulating currencies only: codes flagged `special` (metals, SDR, units of
/// account, XTS, XXX), `fund` (BOV, CLF, USN, ...) or superseded are excluded, so every
/// remaining code has an ISO minor unit.
pub fn generate() -> Vec<Currency> {
    Iso::iter()
        .filter(|c| !c.is_special() && !c.is_fund() && c.is_superseded().is_none())
        .filter_map(|c| {
            let digits = c.exponent()?;
            let symbol = c.symbol().symbol;
            // "¤" is the generic currency sign, i.e. no specific symbol known.
            let symbol = if symbol.is_empty() || symbol == "¤" || symbol.chars().count() > 10 {
                c.code().to_owned()
            } else {
                symbol
            };
            Some(Currency {
                code: c.code().to_owned(),
                name: c.name().to_owned(),
                symbol,
                decimal_digits: i16::try_from(digits).ok()?,
            })
        })
        .collect()
}
