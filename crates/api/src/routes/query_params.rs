//! Parsing of optional query parameters shared by the order and warehouse lists: ids give
//! `INVALID_UUID`, dates and enums `VALIDATION_ERROR` naming the parameter.

use time::macros::format_description;
use time::Date;
use uuid::Uuid;

use crate::http::ApiError;

/// Trimmed, `None` when absent or blank.
pub fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// An optional id filter; a malformed one is 400 `INVALID_UUID`.
pub fn uuid(name: &str, value: &Option<String>) -> Result<Option<Uuid>, ApiError> {
    present(value).map(|v| Uuid::try_parse(v).map_err(|_| ApiError::invalid_uuid(name))).transpose()
}

/// An optional `YYYY-MM-DD`.
pub fn date(name: &str, value: &Option<String>) -> Result<Option<Date>, ApiError> {
    let format = format_description!("[year]-[month]-[day]");
    present(value)
        .map(|v| Date::parse(v, format).map_err(|_| ApiError::field(name, "must be a date YYYY-MM-DD")))
        .transpose()
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
}
