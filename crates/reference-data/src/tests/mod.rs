//! Unit tests of the embedded data.

mod format;
mod known;

use super::*;
use std::collections::HashSet;

#[test]
fn every_file_parses() {
    fn check<T: serde::de::DeserializeOwned>(name: &str, json: &str) {
        if let Err(err) = serde_json::from_str::<Vec<T>>(json) {
            panic!("{name} does not parse: {err}");
        }
    }
    check::<Country>("countries.json", COUNTRIES_JSON);
    check::<Currency>("currencies.json", CURRENCIES_JSON);
    check::<Language>("languages.json", LANGUAGES_JSON);
    check::<Timezone>("timezones.json", TIMEZONES_JSON);
}

#[test]
fn exact_counts() {
    assert_eq!(countries().len(), 249);
    assert_eq!(currencies().len(), 154);
    assert_eq!(languages().len(), 184);
    assert_eq!(timezones().len(), 340);
}

/// Asserts the keys are unique and sorted ascending.
fn assert_unique_sorted<'a>(what: &str, keys: impl Iterator<Item = &'a str>) {
    let keys: Vec<&str> = keys.collect();
    let set: HashSet<&str> = keys.iter().copied().collect();
    assert_eq!(set.len(), keys.len(), "duplicate {what}");
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{what} not sorted");
}

#[test]
fn codes_are_unique_and_sorted() {
    assert_unique_sorted("country codes", countries().iter().map(|c| c.code.as_str()));
    assert_unique_sorted("currency codes", currencies().iter().map(|c| c.code.as_str()));
    assert_unique_sorted("language codes", languages().iter().map(|l| l.code.as_str()));
    assert_unique_sorted("timezone codes", timezones().iter().map(|t| t.code.as_str()));
}

#[test]
fn country_names_are_unique() {
    let names: HashSet<&str> = countries().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), countries().len());
}

#[test]
fn country_references_exist() {
    let currency_codes: HashSet<&str> = currencies().iter().map(|c| c.code.as_str()).collect();
    let language_codes: HashSet<&str> = languages().iter().map(|l| l.code.as_str()).collect();
    for c in countries() {
        assert!(currency_codes.contains(c.currency_code.as_str()), "{}: {}", c.code, c.currency_code);
        assert!(language_codes.contains(c.language_code.as_str()), "{}: {}", c.code, c.language_code);
    }
}
