//! Wire conventions in one place: envelopes, errors, extractors, middleware.

pub mod array_bound;
pub mod body_schema;
pub mod conditional;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod idempotency;
pub mod middleware;
pub mod rate_limit;
pub mod route_policy;
pub mod whole_body;

pub use envelope::{created, list, no_content, ok};
pub use error::ApiError;
pub use extract::{Json, OptionalJson, PageQuery};
