//! Field format checks.

use super::super::*;

fn is_code(s: &str, len: usize, upper: bool) -> bool {
    s.len() == len && s.bytes().all(|b| if upper { b.is_ascii_uppercase() } else { b.is_ascii_lowercase() })
}

/// `^[+-]\d\d:\d\d$`
fn is_offset(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 6
        && matches!(b[0], b'+' | b'-')
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit()
        && b[3] == b':'
        && b[4].is_ascii_digit()
        && b[5].is_ascii_digit()
}

fn is_filled(s: &str) -> bool {
    !s.trim().is_empty() && s.trim() == s
}

#[test]
fn countries_are_well_formed() {
    for c in countries() {
        assert!(is_code(&c.code, 2, true), "{c:?}");
        assert!(is_filled(&c.name) && c.name.chars().count() <= 100, "{c:?}");
        assert!(COUNTRY_REGIONS.contains(&c.region.as_str()), "{c:?}");
        assert!(is_code(&c.currency_code, 3, true), "{c:?}");
        let digits = c.calling_code.strip_prefix('+').unwrap_or_default();
        assert!(!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()), "{c:?}");
        assert!(is_filled(&c.local_name), "{c:?}");
        assert!(is_code(&c.language_code, 2, false), "{c:?}");
    }
}

#[test]
fn currencies_are_well_formed() {
    for c in currencies() {
        assert!(is_code(&c.code, 3, true), "{c:?}");
        assert!(is_filled(&c.name), "{c:?}");
        assert!(is_filled(&c.symbol) && c.symbol.chars().count() <= 10, "{c:?}");
        assert!((0..=4).contains(&c.decimal_digits), "{c:?}");
    }
}

#[test]
fn languages_are_well_formed() {
    for l in languages() {
        assert!(is_code(&l.code, 2, false), "{l:?}");
        assert!(is_filled(&l.name) && is_filled(&l.native_name), "{l:?}");
        assert!(l.direction == "LTR" || l.direction == "RTL", "{l:?}");
    }
}

#[test]
fn timezones_are_well_formed() {
    for t in timezones() {
        assert!(is_filled(&t.code) && t.code.len() <= 50, "{t:?}");
        assert!(is_filled(&t.name), "{t:?}");
        assert!(is_offset(&t.utc_offset), "{t:?}");
        assert!(t.code.starts_with(&format!("{}/", t.region)), "{t:?}");
    }
}

#[test]
fn offset_format_check_rejects_bad_values() {
    assert!(is_offset("+02:00") && is_offset("-03:30"));
    assert!(!is_offset("02:00") && !is_offset("+2:00") && !is_offset("+02:0a"));
}
