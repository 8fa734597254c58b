//! Bounds on client input, in one place for every context (docs/conventions.md, "Bounded input"):
//!
//! - every date or instant a client sends is in the years [`MIN_YEAR`]`..=`[`MAX_YEAR`]
//!   (an instant by its UTC date), so no date arithmetic downstream can leave `time`'s range;
//! - arrays in bodies have a maximum length, checked before any work is done on them, and
//!   duplicates are removed in one pass ([`unique_bounded`]).
//!
//! The serde adapters ([`date`], [`rfc3339`]) apply the year rule while a body is parsed, so the
//! failure names the field like any other body error.

/// The longest text a list's `search` takes, in characters: a longer one would only make the
/// database work through a longer pattern.
pub const MAX_SEARCH_CHARS: usize = 200;

use std::collections::HashSet;
use std::hash::Hash;

use time::format_description::well_known::Rfc3339;
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;
use time::{Date, OffsetDateTime, UtcOffset};

/// The earliest year a client may send in a date or (by its UTC date) a timestamp.
pub const MIN_YEAR: i32 = 1900;
/// The latest year a client may send in a date or (by its UTC date) a timestamp.
pub const MAX_YEAR: i32 = 2200;

/// `YYYY-MM-DD`, the wire form of a date (docs/conventions.md).
const DATE_FORMAT: &[BorrowedFormatItem<'static>] = format_description!("[year]-[month]-[day]");

/// Why a client's value was refused; the message is what the client reads in `details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BoundError {
    /// The text is not a calendar date in the form `YYYY-MM-DD` (also: a day the month lacks).
    #[error("must be a date YYYY-MM-DD")]
    MalformedDate,
    /// The text is not an RFC 3339 timestamp with an offset (`2026-03-01T10:00:00Z`).
    #[error("must be an RFC 3339 timestamp")]
    MalformedInstant,
    /// A well-formed date or timestamp whose (UTC) year is outside [`MIN_YEAR`]`..=`[`MAX_YEAR`].
    #[error("year must be from 1900 to 2200")]
    YearOutOfRange,
    /// An array longer than its bound, counted as sent (before duplicates are removed).
    #[error("at most {max} items are allowed")]
    TooMany {
        /// The bound the array broke: the most items the field takes.
        max: usize,
    },
}

/// Whether `year` is one a client may send: in [`MIN_YEAR`]`..=`[`MAX_YEAR`].
pub fn year_in_range(year: i32) -> bool {
    (MIN_YEAR..=MAX_YEAR).contains(&year)
}

/// `date` unchanged when its year is in range; [`BoundError::YearOutOfRange`] otherwise.
pub fn check_date(date: Date) -> Result<Date, BoundError> {
    if year_in_range(date.year()) {
        Ok(date)
    } else {
        Err(BoundError::YearOutOfRange)
    }
}

/// `at` unchanged (offset kept) when the year of its UTC date is in range;
/// [`BoundError::YearOutOfRange`] otherwise, including an instant that cannot be expressed in UTC.
pub fn check_instant(at: OffsetDateTime) -> Result<OffsetDateTime, BoundError> {
    match at.checked_to_offset(UtcOffset::UTC) {
        Some(utc) if year_in_range(utc.year()) => Ok(at),
        _ => Err(BoundError::YearOutOfRange),
    }
}

/// A client's `YYYY-MM-DD` (surrounding blanks ignored), year in range: [`BoundError::MalformedDate`]
/// or [`BoundError::YearOutOfRange`] otherwise.
pub fn parse_date(text: &str) -> Result<Date, BoundError> {
    let date = Date::parse(text.trim(), DATE_FORMAT).map_err(|_| BoundError::MalformedDate)?;
    check_date(date)
}

/// A client's RFC 3339 timestamp (surrounding blanks ignored), UTC year in range; the offset sent is
/// kept. [`BoundError::MalformedInstant`] or [`BoundError::YearOutOfRange`] otherwise.
pub fn parse_instant(text: &str) -> Result<OffsetDateTime, BoundError> {
    let at = OffsetDateTime::parse(text.trim(), &Rfc3339).map_err(|_| BoundError::MalformedInstant)?;
    check_instant(at)
}

/// At most `max` items, duplicates removed (first occurrence kept, order preserved), in O(n).
/// The length is checked on the array as sent, before duplicates are removed.
pub fn unique_bounded<T: Eq + Hash + Copy>(items: &[T], max: usize) -> Result<Vec<T>, BoundError> {
    if items.len() > max {
        return Err(BoundError::TooMany { max });
    }
    Ok(unique(items.iter().copied()))
}

/// Duplicates removed (first occurrence kept, order preserved), in O(n).
pub fn unique<T: Eq + Hash + Copy>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items.into_iter().filter(|item| seen.insert(*item)).collect()
}

/// `#[serde(with = "shared_kernel::bounds::date")]`: `YYYY-MM-DD` both ways; a year out of range
/// fails deserialisation.
pub mod date {
    use serde::{de, Deserialize, Deserializer, Serializer};
    use time::Date;

    /// Writes the date as `YYYY-MM-DD`.
    pub fn serialize<S: Serializer>(value: &Date, serializer: S) -> Result<S::Ok, S::Error> {
        let text = value.format(super::DATE_FORMAT).map_err(serde::ser::Error::custom)?;
        serializer.serialize_str(&text)
    }

    /// Reads a string with [`parse_date`](super::parse_date); a malformed date or a year out of range
    /// fails with the [`BoundError`](super::BoundError) message.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Date, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        super::parse_date(&text).map_err(de::Error::custom)
    }

    /// `Option<Date>`; `null` is `None`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};
        use time::Date;

        /// Writes `Some` as `YYYY-MM-DD`, `None` as `null`.
        pub fn serialize<S: Serializer>(value: &Option<Date>, serializer: S) -> Result<S::Ok, S::Error> {
            match value {
                Some(date) => super::serialize(date, serializer),
                None => serializer.serialize_none(),
            }
        }

        /// Reads `null` as `None`, anything else as the parent module's `deserialize` does. An absent
        /// field needs `#[serde(default)]` beside this adapter.
        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Date>, D::Error> {
            #[derive(Deserialize)]
            struct Wrapped(#[serde(with = "super")] Date);
            Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|Wrapped(date)| date))
        }
    }
}

/// `#[serde(with = "shared_kernel::bounds::rfc3339")]`: RFC 3339 both ways; a UTC year out of
/// range fails deserialisation.
pub mod rfc3339 {
    use serde::{de, Deserialize, Deserializer, Serializer};
    use time::OffsetDateTime;

    /// Writes the instant in RFC 3339, with its own offset.
    pub fn serialize<S: Serializer>(value: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
        time::serde::rfc3339::serialize(value, serializer)
    }

    /// Reads a string with [`parse_instant`](super::parse_instant); a malformed timestamp or a UTC year
    /// out of range fails with the [`BoundError`](super::BoundError) message.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        super::parse_instant(&text).map_err(de::Error::custom)
    }

    /// `Option<OffsetDateTime>`; `null` is `None`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};
        use time::OffsetDateTime;

        /// Writes `Some` in RFC 3339, `None` as `null`.
        pub fn serialize<S: Serializer>(value: &Option<OffsetDateTime>, serializer: S) -> Result<S::Ok, S::Error> {
            time::serde::rfc3339::option::serialize(value, serializer)
        }

        /// Reads `null` as `None`, anything else as the parent module's `deserialize` does. An absent
        /// field needs `#[serde(default)]` beside this adapter.
        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<OffsetDateTime>, D::Error> {
            #[derive(Deserialize)]
            struct Wrapped(#[serde(with = "super")] OffsetDateTime);
            Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|Wrapped(at)| at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use time::macros::{date, datetime};

    #[test]
    fn years_are_bounded() {
        assert_eq!(parse_date("1900-01-01"), Ok(date!(1900 - 01 - 01)));
        assert_eq!(parse_date(" 2200-12-31 "), Ok(date!(2200 - 12 - 31)));
        assert_eq!(parse_date("2026-02-28"), Ok(date!(2026 - 02 - 28)));
        for bad in ["-9999-01-05", "0000-01-01", "1899-12-31", "2201-01-01"] {
            assert_eq!(parse_date(bad), Err(BoundError::YearOutOfRange), "{bad}");
        }
        for bad in ["99999-01-01", "2026-02-30", "yesterday", "", "+2026-01-01x"] {
            assert_eq!(parse_date(bad), Err(BoundError::MalformedDate), "{bad}");
        }
        assert!(year_in_range(MIN_YEAR) && year_in_range(MAX_YEAR));
        assert!(!year_in_range(MIN_YEAR - 1) && !year_in_range(MAX_YEAR + 1));
        assert!(!year_in_range(i32::MIN) && !year_in_range(i32::MAX));
    }

    #[test]
    fn instants_are_bounded_by_their_utc_year() {
        assert_eq!(parse_instant("2026-03-01T10:00:00Z"), Ok(datetime!(2026-03-01 10:00 UTC)));
        assert!(parse_instant("1900-01-01T00:00:00Z").is_ok());
        assert!(parse_instant("2200-12-31T23:59:59Z").is_ok());
        // Local 1900-01-01 but 1899 in UTC.
        assert_eq!(parse_instant("1900-01-01T00:30:00+01:00"), Err(BoundError::YearOutOfRange));
        assert_eq!(parse_instant("2200-12-31T23:30:00-01:00"), Err(BoundError::YearOutOfRange));
        for bad in ["0000-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "2201-01-01T00:00:00Z", "9999-12-31T23:59:59-23:59"]
        {
            assert_eq!(parse_instant(bad), Err(BoundError::YearOutOfRange), "{bad}");
        }
        for bad in ["-9999-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "2026-03-01", "now"] {
            assert_eq!(parse_instant(bad), Err(BoundError::MalformedInstant), "{bad}");
        }
        assert_eq!(check_instant(OffsetDateTime::UNIX_EPOCH), Ok(OffsetDateTime::UNIX_EPOCH));
    }

    #[test]
    fn arrays_are_bounded_and_deduplicated_in_order() {
        assert_eq!(unique_bounded(&[3, 1, 3, 2, 1], 5), Ok(vec![3, 1, 2]));
        assert_eq!(unique_bounded(&[7; 100], 100), Ok(vec![7]));
        assert_eq!(unique_bounded(&[7; 101], 100), Err(BoundError::TooMany { max: 100 }));
        assert_eq!(unique_bounded::<u8>(&[], 0), Ok(vec![]));
        let many: Vec<u32> = (0..200_000).map(|i| i % 1000).collect();
        assert_eq!(unique(many).len(), 1000);
        assert_eq!(BoundError::TooMany { max: 200 }.to_string(), "at most 200 items are allowed");
    }

    #[derive(Debug, Deserialize)]
    struct Body {
        #[serde(with = "date")]
        day: Date,
        #[serde(default, with = "date::option")]
        maybe_day: Option<Date>,
        #[serde(with = "rfc3339")]
        at: OffsetDateTime,
        #[serde(default, with = "rfc3339::option")]
        maybe_at: Option<OffsetDateTime>,
    }

    fn body(json: serde_json::Value) -> Result<Body, String> {
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    #[test]
    fn serde_adapters_apply_the_rule() {
        let ok = body(serde_json::json!({"day": "2026-01-02", "at": "2026-01-02T03:04:05Z"})).expect("valid");
        assert_eq!((ok.day, ok.maybe_day, ok.maybe_at), (date!(2026 - 01 - 02), None, None));
        assert_eq!(ok.at, datetime!(2026-01-02 03:04:05 UTC));
        let ok = body(serde_json::json!({
            "day": "1900-01-01", "maybe_day": null, "at": "2200-12-31T00:00:00Z", "maybe_at": "2026-01-02T03:04:05+02:00"
        }))
        .expect("valid");
        assert_eq!(ok.maybe_at, Some(datetime!(2026-01-02 01:04:05 UTC)));
        let err = body(serde_json::json!({"day": "1899-12-31", "at": "2026-01-02T03:04:05Z"})).expect_err("year");
        assert!(err.contains("year must be from 1900 to 2200"), "{err}");
        let err =
            body(serde_json::json!({"day": "2026-01-02", "at": "2026-01-02T03:04:05Z", "maybe_day": "2201-01-01"}));
        assert!(err.expect_err("year").contains("year must be"));
        let err = body(serde_json::json!({"day": "2026-01-02", "at": "0001-01-02T03:04:05Z"}));
        assert!(err.expect_err("year").contains("year must be"));
        let err = body(
            serde_json::json!({"day": "2026-01-02", "at": "2026-01-02T03:04:05Z", "maybe_at": "1000-01-01T00:00:00Z"}),
        );
        assert!(err.expect_err("year").contains("year must be"));
        let err = body(serde_json::json!({"day": "2026-13-02", "at": "2026-01-02T03:04:05Z"}));
        assert!(err.expect_err("malformed").contains("must be a date YYYY-MM-DD"));
        let err = body(serde_json::json!({"day": 5, "at": "2026-01-02T03:04:05Z"}));
        assert!(err.is_err());
    }

    #[test]
    fn serde_adapters_write_the_wire_forms() {
        #[derive(serde::Serialize)]
        struct Out {
            #[serde(with = "date")]
            day: Date,
            #[serde(with = "date::option")]
            none: Option<Date>,
            #[serde(with = "rfc3339")]
            at: OffsetDateTime,
        }
        let json =
            serde_json::to_value(Out { day: date!(2026 - 03 - 01), none: None, at: datetime!(2026-03-01 10:00 UTC) })
                .expect("serializes");
        assert_eq!(json, serde_json::json!({"day": "2026-03-01", "none": null, "at": "2026-03-01T10:00:00Z"}));
    }
}
