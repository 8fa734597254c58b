//! Helpers shared by the customer-management routes' parse and map steps: dates, "field present"
//! deserialisation. Reference checks and the phone rule are the use cases' (`crm_domain::application`;
//! the phone library behind its `PhoneNumbers` port is `crate::phone`).

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
