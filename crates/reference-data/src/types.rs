//! The reference data record types (field names match the embedded JSON).

use serde::{Deserialize, Serialize};

/// An ISO 3166-1 country (or territory with an alpha-2 code).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166-1 alpha-2 code, e.g. `UA`.
    pub code: String,
    /// ISO English short name, e.g. `Ukraine`.
    pub name: String,
    /// One of [`crate::COUNTRY_REGIONS`].
    pub region: String,
    /// ISO 4217 code of the country's currency, e.g. `UAH`.
    pub currency_code: String,
    /// Main international dialling prefix, e.g. `+380`.
    pub calling_code: String,
    /// The name in the country's main language, e.g. `Україна`.
    pub local_name: String,
    /// ISO 639-1 code of the country's main language, e.g. `uk`.
    pub language_code: String,
}

/// An active ISO 4217 currency.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Currency {
    /// ISO 4217 alphabetic code, e.g. `UAH`.
    pub code: String,
    /// English name, e.g. `Ukrainian hryvnia`.
    pub name: String,
    /// Display symbol, e.g. `₴`; the code itself when no symbol is known.
    pub symbol: String,
    /// ISO 4217 minor unit (number of decimal digits), 0 to 4.
    pub decimal_digits: i16,
}

/// An ISO 639-1 language.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Language {
    /// ISO 639-1 code, e.g. `uk`.
    pub code: String,
    /// English name, e.g. `Ukrainian`.
    pub name: String,
    /// The language's name for itself, e.g. `українська`.
    pub native_name: String,
    /// Writing direction: `LTR` or `RTL`.
    pub direction: String,
}

/// A canonical IANA time zone.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Timezone {
    /// IANA identifier, e.g. `Europe/Kyiv`.
    pub code: String,
    /// Readable name: the identifier after the area, `_` as spaces, e.g. `Kyiv`.
    pub name: String,
    /// Standard (non-DST) UTC offset, e.g. `+02:00`.
    pub utc_offset: String,
    /// Whether the zone observes daylight saving time (in the generation year).
    pub supports_dst: bool,
    /// The identifier's area, e.g. `Europe`; `Etc` for the Etc zones.
    pub region: String,
}
