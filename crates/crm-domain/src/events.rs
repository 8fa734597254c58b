//! Event names of customer management (decisions §6) and the single place envelopes are built.
//!
//! Which operation emits what:
//! - create customer → `customer.created` (its initial status is not a *change*, so no `status_changed`);
//! - every status move (qualify, convert, churn, reactivate, or the same moves via `PATCH .../status`)
//!   → `customer.status_changed`, plus `customer.converted` for convert and `customer.churned` for churn,
//!   so a consumer of one topic sees every move and the specific topics stay cheap to subscribe to;
//! - tier upgrade → `customer.tier_upgraded`;
//! - create deal → `customer.deal.created`;
//! - every stage change → `customer.deal.stage_changed`, plus `customer.deal.won` / `customer.deal.lost`
//!   when it closes the deal (through `/win`, `/lose` or `/stage` alike).
//!
//! Envelopes carry the domain's instant as `occurred_at` (not the clock at build time), and payload
//! timestamps are RFC 3339 UTC strings, dates `YYYY-MM-DD`.

use serde_json::Value;
use shared_kernel::EventEnvelope;
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, UtcOffset};
use uuid::Uuid;

pub const CUSTOMER_CREATED: &str = "customer.created";
pub const CUSTOMER_STATUS_CHANGED: &str = "customer.status_changed";
pub const CUSTOMER_CONVERTED: &str = "customer.converted";
pub const CUSTOMER_CHURNED: &str = "customer.churned";
pub const CUSTOMER_TIER_UPGRADED: &str = "customer.tier_upgraded";
pub const DEAL_CREATED: &str = "customer.deal.created";
pub const DEAL_STAGE_CHANGED: &str = "customer.deal.stage_changed";
pub const DEAL_WON: &str = "customer.deal.won";
pub const DEAL_LOST: &str = "customer.deal.lost";

/// An envelope that happened at `at`.
pub(crate) fn envelope(name: &str, aggregate_id: Uuid, at: OffsetDateTime, data: Value) -> EventEnvelope {
    let mut event = EventEnvelope::new(name, aggregate_id, data);
    event.occurred_at = at;
    event
}

/// RFC 3339 in UTC with a `Z` suffix.
pub(crate) fn timestamp(at: OffsetDateTime) -> String {
    let at = at.to_offset(UtcOffset::UTC);
    at.format(&Rfc3339).unwrap_or_else(|_| at.to_string())
}

/// `YYYY-MM-DD`.
pub(crate) fn date(day: Date) -> String {
    day.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    #[test]
    fn formats_instants_in_utc_and_dates_plainly() {
        assert_eq!(timestamp(datetime!(2026-03-01 12:30:05 +02:00)), "2026-03-01T10:30:05Z");
        assert_eq!(date(date!(2026 - 03 - 01)), "2026-03-01");
    }

    #[test]
    fn envelope_uses_the_given_instant() {
        let at = datetime!(2026-03-01 10:00 UTC);
        let event = envelope(CUSTOMER_CREATED, Uuid::nil(), at, serde_json::json!({}));
        assert_eq!((event.name.as_str(), event.occurred_at), (CUSTOMER_CREATED, at));
    }
}
