//! Events of customer management (`docs/customer-management.md`).
//!
//! Aggregate id: the customer for `customer.*`, the deal for `customer.deal.*`. Statuses, tiers and
//! stages are their wire names (`lead`, `pro`, `closed_won`, ...). `occurred_at` is the operation's
//! instant; `timestamp` repeats it inside the customer payloads.
//!
//! Which operation emits what:
//! - create customer → `customer.created` (its initial status is not a *change*, so no `status_changed`);
//! - every status move (qualify, convert, churn, reactivate, or the same moves via `PATCH .../status`)
//!   → `customer.status_changed`, plus `customer.converted` for convert and `customer.churned` for churn;
//! - tier upgrade → `customer.tier_upgraded`;
//! - create deal → `customer.deal.created`;
//! - every stage change → `customer.deal.stage_changed`, plus `customer.deal.won` / `customer.deal.lost`
//!   when it closes the deal.

use serde::{Deserialize, Serialize};
use shared_kernel::{CurrencyCode, Email};
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use crate::Topic;

/// A customer was created ([`CustomerCreated`]).
pub const CUSTOMER_CREATED: &str = "customer.created";
/// A customer's status moved, by any operation ([`CustomerStatusChanged`]).
pub const CUSTOMER_STATUS_CHANGED: &str = "customer.status_changed";
/// A prospect became a paying `customer` ([`CustomerConverted`]); sent besides `customer.status_changed`.
pub const CUSTOMER_CONVERTED: &str = "customer.converted";
/// A customer was lost (`churned`) ([`CustomerChurned`]); sent besides `customer.status_changed`.
pub const CUSTOMER_CHURNED: &str = "customer.churned";
/// A customer moved to a higher tier ([`CustomerTierUpgraded`]).
pub const CUSTOMER_TIER_UPGRADED: &str = "customer.tier_upgraded";
/// A deal was opened for a customer ([`DealCreated`]).
pub const DEAL_CREATED: &str = "customer.deal.created";
/// A deal moved to another stage ([`DealStageChanged`]).
pub const DEAL_STAGE_CHANGED: &str = "customer.deal.stage_changed";
/// A deal closed as won (`closed_won`) ([`DealWon`]); sent besides `customer.deal.stage_changed`.
pub const DEAL_WON: &str = "customer.deal.won";
/// A deal closed as lost (`closed_lost`) ([`DealLost`]); sent besides `customer.deal.stage_changed`.
pub const DEAL_LOST: &str = "customer.deal.lost";

/// `customer.created`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomerCreated {
    /// The customer; also the envelope's aggregate id.
    pub customer_id: Uuid,
    /// Its initial status (`lead`, `prospect`, `customer` or `churned`).
    pub status: String,
    /// The customer's email address.
    pub email: Email,
    /// The instant of the operation, repeating the envelope's `occurred_at` (RFC 3339, UTC).
    #[serde(with = "crate::wire::utc")]
    pub timestamp: OffsetDateTime,
}

/// `customer.status_changed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomerStatusChanged {
    /// The customer; also the envelope's aggregate id.
    pub customer_id: Uuid,
    /// The status before the move.
    pub from: String,
    /// The status after the move.
    pub to: String,
    /// The instant of the operation, repeating the envelope's `occurred_at` (RFC 3339, UTC).
    #[serde(with = "crate::wire::utc")]
    pub timestamp: OffsetDateTime,
}

/// `customer.converted`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomerConverted {
    /// The customer; also the envelope's aggregate id.
    pub customer_id: Uuid,
    /// The instant of the operation, repeating the envelope's `occurred_at` (RFC 3339, UTC).
    #[serde(with = "crate::wire::utc")]
    pub timestamp: OffsetDateTime,
}

/// `customer.churned`; `reason` is `null` when none was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomerChurned {
    /// The customer; also the envelope's aggregate id.
    pub customer_id: Uuid,
    /// Why the customer was lost, when given; absent on the wire reads as `None`.
    #[serde(default)]
    pub reason: Option<String>,
    /// The instant of the operation, repeating the envelope's `occurred_at` (RFC 3339, UTC).
    #[serde(with = "crate::wire::utc")]
    pub timestamp: OffsetDateTime,
}

/// `customer.tier_upgraded`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomerTierUpgraded {
    /// The customer; also the envelope's aggregate id.
    pub customer_id: Uuid,
    /// The tier before (`free`, `basic`, `pro` or `enterprise`).
    pub from: String,
    /// The higher tier after.
    pub to: String,
    /// The instant of the operation, repeating the envelope's `occurred_at` (RFC 3339, UTC).
    #[serde(with = "crate::wire::utc")]
    pub timestamp: OffsetDateTime,
}

/// `customer.deal.created`; `value` in minor units of `currency`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealCreated {
    /// The customer the deal belongs to (the envelope's aggregate id is the deal).
    pub customer_id: Uuid,
    /// The user responsible for the deal.
    pub assigned_to: Uuid,
    /// The deal's value in minor units (cents) of `currency`.
    pub value: i64,
    /// The ISO 4217 currency of `value`.
    pub currency: CurrencyCode,
}

/// `customer.deal.stage_changed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealStageChanged {
    /// The customer the deal belongs to (the envelope's aggregate id is the deal).
    pub customer_id: Uuid,
    /// The stage before (`lead`, `qualified`, `proposal`, `negotiation`, `closed_won`, `closed_lost`).
    pub from: String,
    /// The stage after.
    pub to: String,
}

/// `customer.deal.won`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealWon {
    /// The customer the deal belongs to (the envelope's aggregate id is the deal).
    pub customer_id: Uuid,
    /// The value won, in minor units (cents) of `currency`.
    pub value: i64,
    /// The ISO 4217 currency of `value`.
    pub currency: CurrencyCode,
    /// The day the deal actually closed, when given (`YYYY-MM-DD`).
    #[serde(default, with = "crate::wire::optional_date")]
    pub close_date: Option<Date>,
}

/// `customer.deal.lost`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealLost {
    /// The customer the deal belongs to (the envelope's aggregate id is the deal).
    pub customer_id: Uuid,
    /// Why the deal was lost, when given.
    #[serde(default)]
    pub reason: Option<String>,
    /// The day the deal actually closed, when given (`YYYY-MM-DD`).
    #[serde(default, with = "crate::wire::optional_date")]
    pub close_date: Option<Date>,
}

macro_rules! topics {
    ($($payload:ty => $name:expr),* $(,)?) => {
        $(impl Topic for $payload {
            const NAME: &'static str = $name;
        })*
    };
}

topics! {
    CustomerCreated => CUSTOMER_CREATED,
    CustomerStatusChanged => CUSTOMER_STATUS_CHANGED,
    CustomerConverted => CUSTOMER_CONVERTED,
    CustomerChurned => CUSTOMER_CHURNED,
    CustomerTierUpgraded => CUSTOMER_TIER_UPGRADED,
    DealCreated => DEAL_CREATED,
    DealStageChanged => DEAL_STAGE_CHANGED,
    DealWon => DEAL_WON,
    DealLost => DEAL_LOST,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use time::macros::{date, datetime};

    const AT: OffsetDateTime = datetime!(2026-03-02 09:30 UTC);
    const CUSTOMER: Uuid = Uuid::from_u128(7);

    fn usd() -> CurrencyCode {
        CurrencyCode::parse("USD").expect("valid")
    }

    #[test]
    fn customer_events_keep_their_wire_shape() {
        let email = Email::parse("Ada@Example.com").expect("valid");
        round_trips(
            &CustomerCreated { customer_id: CUSTOMER, status: "lead".to_owned(), email, timestamp: AT },
            json!({"customer_id": CUSTOMER, "status": "lead", "email": "ada@example.com",
                   "timestamp": "2026-03-02T09:30:00Z"}),
        );
        let moved = CustomerStatusChanged {
            customer_id: CUSTOMER,
            from: "lead".to_owned(),
            to: "prospect".to_owned(),
            timestamp: AT,
        };
        round_trips(
            &moved,
            json!({"customer_id": CUSTOMER, "from": "lead", "to": "prospect", "timestamp": "2026-03-02T09:30:00Z"}),
        );
        round_trips(
            &CustomerConverted { customer_id: CUSTOMER, timestamp: AT },
            json!({"customer_id": CUSTOMER, "timestamp": "2026-03-02T09:30:00Z"}),
        );
        round_trips(
            &CustomerChurned { customer_id: CUSTOMER, reason: None, timestamp: AT },
            json!({"customer_id": CUSTOMER, "reason": null, "timestamp": "2026-03-02T09:30:00Z"}),
        );
        let upgraded = CustomerTierUpgraded {
            customer_id: CUSTOMER,
            from: "free".to_owned(),
            to: "pro".to_owned(),
            timestamp: AT,
        };
        round_trips(
            &upgraded,
            json!({"customer_id": CUSTOMER, "from": "free", "to": "pro", "timestamp": "2026-03-02T09:30:00Z"}),
        );
    }

    #[test]
    fn timestamps_are_written_in_utc() {
        let at = datetime!(2026-03-01 12:30:05 +02:00);
        let json =
            serde_json::to_value(CustomerConverted { customer_id: CUSTOMER, timestamp: at }).expect("serializes");
        assert_eq!(json["timestamp"], "2026-03-01T10:30:05Z");
    }

    #[test]
    fn deal_events_keep_their_wire_shape() {
        let rep = Uuid::max();
        round_trips(
            &DealCreated { customer_id: CUSTOMER, assigned_to: rep, value: 120_000, currency: usd() },
            json!({"customer_id": CUSTOMER, "assigned_to": rep, "value": 120_000, "currency": "USD"}),
        );
        round_trips(
            &DealStageChanged { customer_id: CUSTOMER, from: "lead".to_owned(), to: "proposal".to_owned() },
            json!({"customer_id": CUSTOMER, "from": "lead", "to": "proposal"}),
        );
        round_trips(
            &DealWon {
                customer_id: CUSTOMER,
                value: 120_000,
                currency: usd(),
                close_date: Some(date!(2026 - 02 - 20)),
            },
            json!({"customer_id": CUSTOMER, "value": 120_000, "currency": "USD", "close_date": "2026-02-20"}),
        );
        round_trips(
            &DealLost { customer_id: CUSTOMER, reason: Some("budget cut".to_owned()), close_date: None },
            json!({"customer_id": CUSTOMER, "reason": "budget cut", "close_date": null}),
        );
    }

    #[test]
    fn topic_names_are_the_decided_ones() {
        assert_eq!(
            [
                CustomerCreated::NAME,
                CustomerStatusChanged::NAME,
                CustomerConverted::NAME,
                CustomerChurned::NAME,
                CustomerTierUpgraded::NAME,
                DealCreated::NAME,
                DealStageChanged::NAME,
                DealWon::NAME,
                DealLost::NAME,
            ],
            [
                "customer.created",
                "customer.status_changed",
                "customer.converted",
                "customer.churned",
                "customer.tier_upgraded",
                "customer.deal.created",
                "customer.deal.stage_changed",
                "customer.deal.won",
                "customer.deal.lost",
            ]
        );
    }

    #[test]
    fn an_envelope_carries_the_payload_and_the_instant() {
        let deal = Uuid::from_u128(9);
        let stage = DealStageChanged { customer_id: CUSTOMER, from: "lead".to_owned(), to: "qualified".to_owned() };
        let event = stage.to_event(deal, AT);
        assert_eq!((event.name.as_str(), event.aggregate_id, event.occurred_at), (DEAL_STAGE_CHANGED, deal, AT));
        assert_eq!(DealStageChanged::from_event(&event), Some(Ok(stage)));
        assert_eq!(DealWon::from_event(&event), None, "another name");
    }
}
