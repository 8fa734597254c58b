//! Customer status moves: lead → prospect → customer → churned → prospect, nothing else.
//!
//! The named triggers (`qualify`, `convert`, `churn`, `reactivate`) and the generic
//! `transition_to` (`PATCH .../status`) share one table, [`StatusMove`], so they cannot drift apart.
//! Every move yields a [`StatusChange`] for the history table and `customer.status_changed`, plus the
//! move's own event (see [`crate::events`]). The repository applies it only if the stored status still
//! equals [`StatusTransition::from`].

use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

use super::{Customer, CustomerError};
use crate::enums::CustomerStatus;
use crate::events::{CustomerChurned, CustomerConverted, CustomerStatusChanged, Topic};
use crate::validate::free_text;

/// The four allowed moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusMove {
    /// lead → prospect.
    Qualify,
    /// prospect → customer; also emits `customer.converted`.
    Convert,
    /// customer → churned; sets `churned_at`, emits `customer.churned` with the reason.
    Churn,
    /// churned → prospect; clears `churned_at`.
    Reactivate,
}

impl StatusMove {
    /// Every move, in lifecycle order.
    pub const ALL: [StatusMove; 4] =
        [StatusMove::Qualify, StatusMove::Convert, StatusMove::Churn, StatusMove::Reactivate];

    /// The status the move starts from (the only one it is allowed from).
    pub fn from(self) -> CustomerStatus {
        match self {
            StatusMove::Qualify => CustomerStatus::Lead,
            StatusMove::Convert => CustomerStatus::Prospect,
            StatusMove::Churn => CustomerStatus::Customer,
            StatusMove::Reactivate => CustomerStatus::Churned,
        }
    }

    /// The status the move reaches.
    pub fn to(self) -> CustomerStatus {
        match self {
            StatusMove::Qualify => CustomerStatus::Prospect,
            StatusMove::Convert => CustomerStatus::Customer,
            StatusMove::Churn => CustomerStatus::Churned,
            StatusMove::Reactivate => CustomerStatus::Prospect,
        }
    }

    /// The move from `from` to `to`, if the lifecycle has one.
    pub fn between(from: CustomerStatus, to: CustomerStatus) -> Option<StatusMove> {
        Self::ALL.into_iter().find(|m| m.from() == from && m.to() == to)
    }
}

/// One row of the status history (analytics reads it). `from` is `None` for the creation row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    /// The status before; `None` for the creation row.
    pub from: Option<CustomerStatus>,
    /// The status after.
    pub to: CustomerStatus,
    /// Why, as the caller said it (trimmed; blank is none).
    pub reason: Option<String>,
    /// When the change happened.
    pub at: OffsetDateTime,
}

/// The outcome of a status move: save it with `CustomerRepository::save_transition`.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusTransition {
    /// The new state.
    pub customer: Customer,
    /// The status the move started from; the conditional update expects it.
    pub from: CustomerStatus,
    /// The history row to write with it.
    pub history: StatusChange,
    /// `customer.status_changed`, then the move's own event if it has one.
    pub events: Vec<EventEnvelope>,
}

impl Customer {
    /// lead → prospect.
    pub fn qualify(&self, now: OffsetDateTime) -> Result<StatusTransition, CustomerError> {
        self.apply(StatusMove::Qualify, None, now)
    }

    /// prospect → customer.
    pub fn convert(&self, now: OffsetDateTime) -> Result<StatusTransition, CustomerError> {
        self.apply(StatusMove::Convert, None, now)
    }

    /// customer → churned; sets `churned_at`. The reason goes into the history and the event.
    pub fn churn(&self, reason: Option<String>, now: OffsetDateTime) -> Result<StatusTransition, CustomerError> {
        self.apply(StatusMove::Churn, reason, now)
    }

    /// churned → prospect; clears `churned_at`.
    pub fn reactivate(&self, now: OffsetDateTime) -> Result<StatusTransition, CustomerError> {
        self.apply(StatusMove::Reactivate, None, now)
    }

    /// `PATCH .../status`: exactly the moves above, chosen by target; the reason is kept for every
    /// move. `InvalidStatusTransition` when no move leads from the current status to `target`.
    pub fn transition_to(
        &self,
        target: CustomerStatus,
        reason: Option<String>,
        now: OffsetDateTime,
    ) -> Result<StatusTransition, CustomerError> {
        let found = StatusMove::between(self.status, target);
        let step = found.ok_or(CustomerError::InvalidStatusTransition { from: self.status, to: target })?;
        self.apply(step, reason, now)
    }

    fn apply(
        &self,
        step: StatusMove,
        reason: Option<String>,
        now: OffsetDateTime,
    ) -> Result<StatusTransition, CustomerError> {
        if self.status != step.from() {
            return Err(CustomerError::InvalidStatusTransition { from: self.status, to: step.to() });
        }
        let reason = free_text(reason).map(|r| r.trim().to_owned());
        let mut next = Customer { status: step.to(), updated_at: now, ..self.clone() };
        match step {
            StatusMove::Churn => next.churned_at = Some(now),
            StatusMove::Reactivate => next.churned_at = None,
            StatusMove::Qualify | StatusMove::Convert => {}
        }

        let id = self.id;
        let moved = CustomerStatusChanged {
            customer_id: id,
            from: step.from().as_str().to_owned(),
            to: step.to().as_str().to_owned(),
            timestamp: now,
        };
        let mut events = vec![moved.to_event(id, now)];
        match step {
            StatusMove::Convert => events.push(CustomerConverted { customer_id: id, timestamp: now }.to_event(id, now)),
            StatusMove::Churn => {
                let churned = CustomerChurned { customer_id: id, reason: reason.clone(), timestamp: now };
                events.push(churned.to_event(id, now));
            }
            StatusMove::Qualify | StatusMove::Reactivate => {}
        }

        let history = StatusChange { from: Some(step.from()), to: step.to(), reason, at: now };
        Ok(StatusTransition { customer: next, from: step.from(), history, events })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{customer_in, LATER, NOW};
    use super::*;
    use serde_json::json;
    use shared_kernel::error::{Classified, ErrorKind};
    use CustomerStatus::{Churned, Customer as Cust, Lead, Prospect};

    #[derive(Debug, Clone, Copy)]
    enum Trigger {
        Qualify,
        Convert,
        Churn,
        Reactivate,
        To(CustomerStatus),
    }

    fn fire(customer: &Customer, trigger: Trigger) -> Result<StatusTransition, CustomerError> {
        let reason = Some("too expensive".to_owned());
        match trigger {
            Trigger::Qualify => customer.qualify(LATER),
            Trigger::Convert => customer.convert(LATER),
            Trigger::Churn => customer.churn(reason, LATER),
            Trigger::Reactivate => customer.reactivate(LATER),
            Trigger::To(target) => customer.transition_to(target, reason, LATER),
        }
    }

    /// The whole table: `Some(to)` where the move is allowed, `None` where it must be rejected.
    fn expected(from: CustomerStatus, trigger: Trigger) -> Option<CustomerStatus> {
        match (from, trigger) {
            (Lead, Trigger::Qualify | Trigger::To(Prospect)) => Some(Prospect),
            (Prospect, Trigger::Convert | Trigger::To(Cust)) => Some(Cust),
            (Cust, Trigger::Churn | Trigger::To(Churned)) => Some(Churned),
            (Churned, Trigger::Reactivate | Trigger::To(Prospect)) => Some(Prospect),
            _ => None,
        }
    }

    fn triggers() -> Vec<Trigger> {
        let mut all = vec![Trigger::Qualify, Trigger::Convert, Trigger::Churn, Trigger::Reactivate];
        all.extend(CustomerStatus::ALL.iter().map(|s| Trigger::To(*s)));
        all
    }

    #[test]
    fn every_state_times_every_trigger() {
        let mut allowed = 0;
        for &from in CustomerStatus::ALL {
            let customer = customer_in(from);
            for trigger in triggers() {
                let result = fire(&customer, trigger);
                match expected(from, trigger) {
                    Some(to) => {
                        allowed += 1;
                        let t = result.unwrap_or_else(|e| panic!("{from} {trigger:?}: {e}"));
                        assert_eq!((t.from, t.customer.status, t.customer.updated_at), (from, to, LATER));
                        assert_eq!((t.history.from, t.history.to, t.history.at), (Some(from), to, LATER));
                        assert_eq!(t.customer.churned_at, (to == Churned).then_some(LATER), "{from} {trigger:?}");
                        assert_eq!(customer.status, from, "the original is untouched");
                    }
                    None => {
                        let error = result.expect_err("must be rejected");
                        assert_eq!(error.code(), "INVALID_STATUS_TRANSITION", "{from} {trigger:?}");
                        assert_eq!(error.kind(), ErrorKind::Conflict);
                        assert!(matches!(error, CustomerError::InvalidStatusTransition { from: f, .. } if f == from));
                    }
                }
            }
        }
        assert_eq!(allowed, 8, "four named moves and the same four through transition_to");
    }

    #[test]
    fn rejected_named_trigger_reports_its_target() {
        let error = customer_in(Lead).convert(LATER).expect_err("lead cannot convert");
        assert_eq!(error, CustomerError::InvalidStatusTransition { from: Lead, to: Cust });
        let error = customer_in(Churned).transition_to(Cust, None, LATER).expect_err("primary form");
        assert_eq!(error, CustomerError::InvalidStatusTransition { from: Churned, to: Cust });
    }

    #[test]
    fn moves_table_matches_the_spec() {
        let pairs: Vec<_> = StatusMove::ALL.iter().map(|m| (m.from(), m.to())).collect();
        assert_eq!(pairs, vec![(Lead, Prospect), (Prospect, Cust), (Cust, Churned), (Churned, Prospect)]);
        assert_eq!(StatusMove::between(Lead, Cust), None);
        assert_eq!(StatusMove::between(Churned, Prospect), Some(StatusMove::Reactivate));
    }

    fn names(t: &StatusTransition) -> Vec<&str> {
        t.events.iter().map(|e| e.name.as_str()).collect()
    }

    #[test]
    fn events_per_move() {
        let qualified = customer_in(Lead).qualify(LATER).expect("allowed");
        assert_eq!(names(&qualified), vec!["customer.status_changed"]);
        let id = qualified.customer.id;
        assert_eq!(
            qualified.events[0].data,
            json!({"customer_id": id, "from": "lead", "to": "prospect", "timestamp": "2026-03-02T09:30:00Z"})
        );
        assert!(qualified.events.iter().all(|e| e.aggregate_id == id && e.occurred_at == LATER));

        let converted = customer_in(Prospect).convert(LATER).expect("allowed");
        assert_eq!(names(&converted), vec!["customer.status_changed", "customer.converted"]);
        let converted_id = converted.customer.id;
        assert_eq!(converted.events[1].data, json!({"customer_id": converted_id, "timestamp": "2026-03-02T09:30:00Z"}));

        let churned = customer_in(Cust).churn(Some("  price ".into()), LATER).expect("allowed");
        assert_eq!(names(&churned), vec!["customer.status_changed", "customer.churned"]);
        assert_eq!(churned.events[1].data["reason"], "price");
        assert_eq!(churned.history.reason.as_deref(), Some("price"));
        let no_reason = customer_in(Cust).churn(None, LATER).expect("allowed");
        assert_eq!(no_reason.events[1].data["reason"], serde_json::Value::Null);

        let reactivated = customer_in(Churned).reactivate(LATER).expect("allowed");
        assert_eq!(names(&reactivated), vec!["customer.status_changed"]);
        assert_eq!(reactivated.customer.churned_at, None);
        assert_eq!(reactivated.history.reason, None);
    }

    #[test]
    fn patch_status_emits_like_the_named_trigger() {
        let via_patch = customer_in(Cust).transition_to(Churned, Some("moved".into()), LATER).expect("allowed");
        assert_eq!(names(&via_patch), vec!["customer.status_changed", "customer.churned"]);
        assert_eq!(via_patch.history.reason.as_deref(), Some("moved"));
        let qualified = customer_in(Lead).transition_to(Prospect, Some("call went well".into()), LATER);
        assert_eq!(qualified.expect("allowed").history.reason.as_deref(), Some("call went well"));
        assert_eq!(customer_in(Lead).created_at, NOW);
    }
}
