//! Shared reference data: countries, currencies, languages and time zones.
//!
//! The data lives in `data/*.json`, generated from published standards by the tool in
//! `generator/` (see its README), and is embedded at compile time. Each list is parsed
//! once, on first use, and is sorted by code.

mod types;

#[cfg(test)]
mod tests;

pub use types::{Country, Currency, Language, Timezone};

use std::sync::OnceLock;

/// The values of [`Country::region`].
pub const COUNTRY_REGIONS: [&str; 6] = ["Africa", "Americas", "Asia", "Europe", "Oceania", "Antarctica"];

const COUNTRIES_JSON: &str = include_str!("../data/countries.json");
const CURRENCIES_JSON: &str = include_str!("../data/currencies.json");
const LANGUAGES_JSON: &str = include_str!("../data/languages.json");
const TIMEZONES_JSON: &str = include_str!("../data/timezones.json");

/// All ISO 3166-1 countries, sorted by code.
pub fn countries() -> &'static [Country] {
    static DATA: OnceLock<Vec<Country>> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(COUNTRIES_JSON).expect("embedded countries.json is valid (unit-tested)"))
}

/// Active ISO 4217 currencies, sorted by code.
pub fn currencies() -> &'static [Currency] {
    static DATA: OnceLock<Vec<Currency>> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(CURRENCIES_JSON).expect("embedded currencies.json is valid (unit-tested)"))
}

/// All ISO 639-1 languages, sorted by code.
pub fn languages() -> &'static [Language] {
    static DATA: OnceLock<Vec<Language>> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(LANGUAGES_JSON).expect("embedded languages.json is valid (unit-tested)"))
}

/// Canonical IANA time zones, sorted by code.
pub fn timezones() -> &'static [Timezone] {
    static DATA: OnceLock<Vec<Timezone>> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(TIMEZONES_JSON).expect("embedded timezones.json is valid (unit-tested)"))
}
