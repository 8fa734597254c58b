//! Helpers shared by the customer-management routes' parse and map steps: phone numbers, dates,
//! "field present" deserialisation. Reference checks are the use cases' (`crm_domain::application`).
//!
//! Phone numbers are parsed and normalised here, in the parse step, with `phonenumber` (the rule has no
//! I/O, but the library is the api's; the use cases take an E.164 number already checked).

use actix_web::http::StatusCode;
use serde::{Deserialize, Deserializer};
use time::OffsetDateTime;

use crate::http::ApiError;

// `YYYY-MM-DD` in and out (`time`'s own serde form for dates is a tuple). In a body, a year outside
// 1900..=2200 is a 400 naming the field (docs/identity.md).
pub use shared_kernel::bounds::date as day;

/// For `Option<Option<T>>` fields: absent stays `None`, `null` becomes `Some(None)`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// RFC 3339 in UTC, as every response writes instants.
pub fn timestamp(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    at.format(&time::format_description::well_known::Rfc3339).unwrap_or_else(|_| at.to_string())
}

/// A missing required body field that `Option<Option<_>>` lets through.
pub fn required(field: &str) -> ApiError {
    ApiError::field(field, "is required")
}

pub fn customer_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "CUSTOMER_NOT_FOUND", "no such customer")
}

/// A phone number in E.164 form: must start with `+` and be valid for its country code.
/// Blank means "no phone".
pub fn e164(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let invalid = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "INVALID_PHONE",
            "phone must be a valid international number starting with +",
        )
        .on_field("phone")
    };
    if !text.starts_with('+') {
        return Err(invalid());
    }
    let number = phonenumber::parse(None, text).map_err(|_| invalid())?;
    if !phonenumber::is_valid(&number) {
        return Err(invalid());
    }
    Ok(Some(number.format().mode(phonenumber::Mode::E164).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_validated_and_normalised() {
        assert_eq!(e164(Some(" +380 44 123 4567 ")).ok().flatten().as_deref(), Some("+380441234567"));
        assert_eq!(e164(Some("+1 (415) 555-2671")).ok().flatten().as_deref(), Some("+14155552671"));
        assert_eq!(e164(Some("  ")).ok().flatten(), None);
        for bad in ["0441234567", "+1", "+999 123", "phone", "+380 12"] {
            assert_eq!(e164(Some(bad)).map_err(|e| e.code), Err("INVALID_PHONE"), "{bad}");
        }
    }
}
