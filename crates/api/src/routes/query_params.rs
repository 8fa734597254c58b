//! Parsing of optional query parameters shared by the lists and analytics: ids give
//! `INVALID_UUID`, dates, timestamps and enums `VALIDATION_ERROR` naming the parameter.
//! Dates and timestamps follow `shared_kernel::bounds` (years 1900..=2200).

use shared_kernel::bounds;
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use crate::http::ApiError;

use shared_kernel::bounds::MAX_SEARCH_CHARS;

/// Serde's reader of every list's `search` (`#[serde(default, deserialize_with = ...)]`): refuses a
/// text over [`MAX_SEARCH_CHARS`] while the query string is parsed, so no list builds a pattern of it.
pub fn bounded_search<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text: Option<String> = serde::Deserialize::deserialize(deserializer)?;
    match text {
        Some(text) if text.chars().count() > MAX_SEARCH_CHARS => {
            Err(serde::de::Error::custom(format!("search must be at most {MAX_SEARCH_CHARS} characters")))
        }
        other => Ok(other),
    }
}

/// Trimmed, `None` when absent or blank.
pub fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// An optional id filter; a malformed one is 400 `INVALID_UUID`.
pub fn uuid(name: &str, value: &Option<String>) -> Result<Option<Uuid>, ApiError> {
    present(value).map(|v| Uuid::try_parse(v).map_err(|_| ApiError::invalid_uuid(name))).transpose()
}

/// An optional `YYYY-MM-DD` in the years 1900..=2200.
pub fn date(name: &str, value: &Option<String>) -> Result<Option<Date>, ApiError> {
    present(value).map(|v| bounds::parse_date(v).map_err(|e| ApiError::field(name, e.to_string()))).transpose()
}

/// An optional RFC 3339 timestamp whose UTC year is in 1900..=2200.
pub fn timestamp(name: &str, value: &Option<String>) -> Result<Option<OffsetDateTime>, ApiError> {
    present(value).map(|v| bounds::parse_instant(v).map_err(|e| ApiError::field(name, e.to_string()))).transpose()
}

/// `date_from` after `date_to` is a 400 on `date_from`.
pub fn date_range(from: Option<Date>, to: Option<Date>) -> Result<(), ApiError> {
    match (from, to) {
        (Some(f), Some(t)) if f > t => Err(ApiError::field("date_from", "must not be after date_to")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_or_names_the_parameter() {
        assert_eq!(uuid("product_id", &None).ok(), Some(None));
        assert_eq!(uuid("product_id", &Some(" ".into())).ok(), Some(None));
        assert_eq!(uuid("product_id", &Some("x".into())).map_err(|e| e.code).err(), Some("INVALID_UUID"));
        assert!(date("date_from", &Some("2026-02-30".into())).is_err());
        assert!(date("date_from", &Some("2026-02-28".into())).is_ok_and(|d| d.is_some()));
        let (a, b) = (date("a", &Some("2026-01-02".into())), date("b", &Some("2026-01-01".into())));
        assert!(date_range(a.ok().flatten(), b.ok().flatten()).is_err());
    }

    fn detail(result: Result<impl std::fmt::Debug, ApiError>, name: &str) -> Option<String> {
        let error = result.expect_err("must fail");
        assert_eq!(error.code, "VALIDATION_ERROR");
        error.details.and_then(|d| d.get(name).cloned())
    }

    #[test]
    fn dates_and_timestamps_are_bounded() {
        for bad in ["-9999-01-05", "0000-01-01", "1899-12-31", "2201-01-01"] {
            let message = detail(date("end_date", &Some(bad.into())), "end_date");
            assert_eq!(message.as_deref(), Some("year must be from 1900 to 2200"), "{bad}");
        }
        assert!(detail(date("date_to", &Some("99999-01-01".into())), "date_to").is_some());
        assert!(date("d", &Some("1900-01-01".into())).is_ok_and(|d| d.is_some()));
        assert!(date("d", &Some("2200-12-31".into())).is_ok_and(|d| d.is_some()));
        assert_eq!(timestamp("since", &None).ok(), Some(None));
        assert!(timestamp("since", &Some("2026-03-01T10:00:00Z".into())).is_ok_and(|t| t.is_some()));
        for bad in ["0000-01-01T00:00:00Z", "2201-01-01T00:00:00Z", "-9999-01-01T00:00:00Z", "soon"] {
            assert!(detail(timestamp("due_before", &Some(bad.into())), "due_before").is_some(), "{bad}");
        }
    }
}
