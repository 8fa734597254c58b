//! Deal aggregate: a sales opportunity moving through the pipeline.
//!
//! Open stages (lead, qualified, proposal, negotiation) may move to any stage, earlier ones included;
//! closed stages (closed_won, closed_lost) are final: moving, winning or losing a closed deal is
//! `MOVE_STAGE_FAILED` (400), editing its name, date or value is `DEAL_CLOSED` (409). Probability is
//! always the stage's. Times come in as `now`; "today" is `now`'s date in UTC.
//! The value is positive on create and on every later change (one invariant, simpler to trust).
//! Stage moves live in `stage.rs`; this file holds creation and the edits of an open deal.

mod stage;

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::{CurrencyCode, EventEnvelope, Money};
use time::{Date, OffsetDateTime, UtcOffset};
use uuid::Uuid;

use crate::enums::{DealSource, DealStage};
use crate::error::FieldError;
use crate::events::{DealCreated as DealCreatedEvent, Topic};
use crate::validate::{required_text, tags};

/// The longest deal name, in characters after trimming.
pub const MAX_DEAL_NAME_CHARS: usize = 200;

/// `USD`, the currency of a deal created without one.
pub fn default_currency() -> CurrencyCode {
    match CurrencyCode::parse("USD") {
        Ok(code) => code,
        Err(_) => unreachable!("USD is three ASCII letters"),
    }
}

/// Why a deal operation was refused; [`Classified`] gives each case its kind and wire code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid {
        /// The request field at fault.
        field: &'static str,
        /// The rule it broke.
        message: String,
    },
    /// `MOVE_STAGE_FAILED` 400: the deal is closed, its stage cannot change.
    #[error("the deal is {stage} and cannot change stage")]
    MoveStageFailed {
        /// The closed stage the deal is in.
        stage: DealStage,
    },
    /// `DEAL_CLOSED` 409: a closed deal's details cannot change.
    #[error("the deal is {stage} and cannot be edited")]
    Closed {
        /// The closed stage the deal is in.
        stage: DealStage,
    },
}

impl DealError {
    /// The request field at fault, for the error's `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            DealError::Invalid { field, .. } => Some(field),
            DealError::MoveStageFailed { .. } | DealError::Closed { .. } => None,
        }
    }
}

impl Classified for DealError {
    fn kind(&self) -> ErrorKind {
        match self {
            DealError::Invalid { .. } | DealError::MoveStageFailed { .. } => ErrorKind::Validation,
            DealError::Closed { .. } => ErrorKind::Conflict,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            DealError::Invalid { .. } => "VALIDATION_ERROR",
            DealError::MoveStageFailed { .. } => "MOVE_STAGE_FAILED",
            DealError::Closed { .. } => "DEAL_CLOSED",
        }
    }
}

impl From<FieldError> for DealError {
    fn from(e: FieldError) -> Self {
        DealError::Invalid { field: e.field, message: e.message }
    }
}

/// A sales opportunity with one customer, as stored. Build one with [`Deal::new`]; adapters fill the
/// fields when loading rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deal {
    /// The deal's identity.
    pub id: Uuid,
    /// The customer the deal is with.
    pub customer_id: Uuid,
    /// The sales rep in charge (an active user).
    pub assigned_to: Uuid,
    /// What is being sold, trimmed, 1..=[`MAX_DEAL_NAME_CHARS`] characters.
    pub name: String,
    /// Minor units (cents) of `currency`; always positive.
    pub value: i64,
    /// The currency of `value`, an active ISO 4217 code of the reference data.
    pub currency: CurrencyCode,
    /// Where the deal stands in the pipeline; changes only through the stage moves.
    pub stage: DealStage,
    /// Always `stage.probability()`; stored for queries.
    pub probability: u8,
    /// Where the deal came from.
    pub source: DealSource,
    /// When the deal is expected to close; after today (UTC) whenever it is set.
    pub expected_close_date: Date,
    /// When the deal closed; set exactly on closed deals.
    pub actual_close_date: Option<Date>,
    /// Why a lost deal was lost, if said.
    pub loss_reason: Option<String>,
    /// Normalised tags (shared kernel rule).
    pub tags: Vec<String>,
    /// When the deal was created.
    pub created_at: OffsetDateTime,
    /// When the deal last changed.
    pub updated_at: OffsetDateTime,
    /// When the deal was soft-deleted; repositories never return deleted deals.
    pub deleted_at: Option<OffsetDateTime>,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// Raw creation input; [`Deal::new`] validates it.
#[derive(Debug, Clone)]
pub struct NewDeal {
    /// The customer the deal is with; must exist (checked by the repository).
    pub customer_id: Uuid,
    /// The sales rep in charge; must be an active user (the caller's check).
    pub assigned_to: Uuid,
    /// What is being sold, 1..=[`MAX_DEAL_NAME_CHARS`] characters after trimming.
    pub name: String,
    /// The worth in cents of `currency`; must be positive.
    pub value: i64,
    /// Default [`default_currency`].
    pub currency: Option<CurrencyCode>,
    /// Default `inbound`.
    pub source: Option<DealSource>,
    /// Must be after today (UTC date of `now`).
    pub expected_close_date: Date,
    /// Raw tags, normalised by the shared tag rule.
    pub tags: Vec<String>,
}

/// One row of the stage history (analytics reads it). `from` is `None` for the creation row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageChange {
    /// The stage before; `None` for the creation row.
    pub from: Option<DealStage>,
    /// The stage after.
    pub to: DealStage,
    /// When the change happened.
    pub at: OffsetDateTime,
}

/// A new deal with its first history row and `customer.deal.created`; save all of it with
/// `DealRepository::create`.
#[derive(Debug, Clone, PartialEq)]
pub struct DealCreated {
    /// The new deal, at `lead`, version 1.
    pub deal: Deal,
    /// The first stage history row.
    pub history: StageChange,
    /// `customer.deal.created`.
    pub events: Vec<EventEnvelope>,
}

/// A stage change: save it with `DealRepository::save_stage_change`, conditional on `from`.
#[derive(Debug, Clone, PartialEq)]
pub struct StageTransition {
    /// The deal at its new stage, probability and close data set.
    pub deal: Deal,
    /// The stage it was read at, which the conditional update expects.
    pub from: DealStage,
    /// The history row to write with it.
    pub history: StageChange,
    /// `customer.deal.stage_changed`, then `customer.deal.won` or `.lost` when it closes.
    pub events: Vec<EventEnvelope>,
}

pub(crate) fn today(now: OffsetDateTime) -> Date {
    now.to_offset(UtcOffset::UTC).date()
}

fn future_date(field: &'static str, day: Date, now: OffsetDateTime) -> Result<Date, FieldError> {
    if day > today(now) {
        Ok(day)
    } else {
        Err(FieldError::new(field, "must be after today"))
    }
}

fn positive_value(value: i64) -> Result<i64, FieldError> {
    if value > 0 {
        Ok(value)
    } else {
        Err(FieldError::new("value", "must be a positive amount of cents"))
    }
}

impl Deal {
    /// Validates `input` into a new deal at `lead` (fresh id, version 1, probability 10), with its
    /// first history row and `customer.deal.created`. Refusals are `Invalid` naming `name`, `value`,
    /// `expected_close_date` or `tags`.
    #[expect(clippy::new_ret_no_self, reason = "creation also yields the history row and events to store with it")]
    pub fn new(input: NewDeal, now: OffsetDateTime) -> Result<DealCreated, DealError> {
        let deal = Deal {
            version: 1,
            id: shared_kernel::new_id(),
            customer_id: input.customer_id,
            assigned_to: input.assigned_to,
            name: required_text("name", &input.name, MAX_DEAL_NAME_CHARS)?,
            value: positive_value(input.value)?,
            currency: input.currency.unwrap_or_else(default_currency),
            stage: DealStage::Lead,
            probability: DealStage::Lead.probability(),
            source: input.source.unwrap_or_default(),
            expected_close_date: future_date("expected_close_date", input.expected_close_date, now)?,
            actual_close_date: None,
            loss_reason: None,
            tags: tags("tags", input.tags)?,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        };
        let created = DealCreatedEvent {
            customer_id: deal.customer_id,
            assigned_to: deal.assigned_to,
            value: deal.value,
            currency: deal.currency,
        }
        .to_event(deal.id, now);
        let history = StageChange { from: None, to: DealStage::Lead, at: now };
        Ok(DealCreated { deal, history, events: vec![created] })
    }

    /// The deal's worth as [`Money`].
    pub fn money(&self) -> Money {
        Money::new(self.value, self.currency)
    }

    /// `PUT .../basic-info`: absent fields stay; a new close date must be after today. `Closed` for
    /// a closed deal. Save with `DealRepository::update_open`.
    pub fn update_basic_info(
        &self,
        name: Option<String>,
        expected_close_date: Option<Date>,
        now: OffsetDateTime,
    ) -> Result<Deal, DealError> {
        self.ensure_open_for_edit()?;
        let mut next = self.clone();
        if let Some(name) = name {
            next.name = required_text("name", &name, MAX_DEAL_NAME_CHARS)?;
        }
        if let Some(day) = expected_close_date {
            next.expected_close_date = future_date("expected_close_date", day, now)?;
        }
        next.updated_at = now;
        Ok(next)
    }

    /// `PUT .../value`: a positive amount in `currency`. `Closed` for a closed deal. Save with
    /// `DealRepository::update_open`.
    pub fn update_value(&self, value: i64, currency: CurrencyCode, now: OffsetDateTime) -> Result<Deal, DealError> {
        self.ensure_open_for_edit()?;
        Ok(Deal { value: positive_value(value)?, currency, updated_at: now, ..self.clone() })
    }

    fn ensure_open_for_edit(&self) -> Result<(), DealError> {
        if self.stage.is_closed() {
            Err(DealError::Closed { stage: self.stage })
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::{date, datetime};

    pub(crate) const NOW: OffsetDateTime = datetime!(2026-03-01 23:30 -02:00); // 2026-03-02 in UTC
    pub(crate) const TODAY: Date = date!(2026 - 03 - 02);
    pub(crate) const CLOSE: Date = date!(2026 - 02 - 20);

    pub(crate) fn input() -> NewDeal {
        NewDeal {
            customer_id: Uuid::nil(),
            assigned_to: Uuid::max(),
            name: "Annual plan".into(),
            value: 120_000,
            currency: None,
            source: None,
            expected_close_date: date!(2026 - 06 - 30),
            tags: vec![],
        }
    }

    pub(crate) fn deal_in(stage: DealStage) -> Deal {
        let deal = Deal::new(input(), NOW).expect("valid").deal;
        Deal { stage, probability: stage.probability(), ..deal }
    }

    pub(crate) fn usd() -> CurrencyCode {
        default_currency()
    }

    #[test]
    fn creates_at_lead_with_defaults_history_and_event() {
        let created = Deal::new(input(), NOW).expect("valid");
        let d = &created.deal;
        assert_eq!(
            (d.stage, d.probability, d.source, d.currency.as_str()),
            (DealStage::Lead, 10, DealSource::Inbound, "USD")
        );
        assert_eq!((d.actual_close_date, d.loss_reason.as_deref(), d.created_at), (None, None, NOW));
        assert_eq!(d.money(), Money::new(120_000, usd()));
        assert_eq!(created.history, StageChange { from: None, to: DealStage::Lead, at: NOW });
        assert_eq!(created.events.len(), 1);
        let event = &created.events[0];
        assert_eq!((event.name.as_str(), event.aggregate_id), ("customer.deal.created", d.id));
        assert_eq!(
            event.data,
            json!({"customer_id": Uuid::nil(), "assigned_to": Uuid::max(), "value": 120_000, "currency": "USD"})
        );
    }

    #[test]
    fn create_validation() {
        let field = |input: NewDeal| Deal::new(input, NOW).expect_err("rejected").field();
        assert!(Deal::new(NewDeal { name: "n".repeat(200), ..input() }, NOW).is_ok());
        assert_eq!(field(NewDeal { name: "n".repeat(201), ..input() }), Some("name"));
        assert_eq!(field(NewDeal { name: " ".into(), ..input() }), Some("name"));
        assert!(Deal::new(NewDeal { value: 1, ..input() }, NOW).is_ok());
        assert_eq!(field(NewDeal { value: 0, ..input() }), Some("value"));
        assert_eq!(field(NewDeal { value: -5, ..input() }), Some("value"));
        assert_eq!(field(NewDeal { expected_close_date: TODAY, ..input() }), Some("expected_close_date"));
        assert_eq!(
            field(NewDeal { expected_close_date: date!(2026 - 03 - 01), ..input() }),
            Some("expected_close_date")
        );
        assert!(Deal::new(NewDeal { expected_close_date: date!(2026 - 03 - 03), ..input() }, NOW).is_ok());
        assert_eq!(field(NewDeal { tags: vec!["".into()], ..input() }), Some("tags"));
        let error = Deal::new(NewDeal { value: 0, ..input() }, NOW).expect_err("rejected");
        assert_eq!((error.code(), error.kind()), ("VALIDATION_ERROR", ErrorKind::Validation));
    }

    #[derive(Debug, Clone, Copy)]
    enum Trigger {
        MoveTo(DealStage),
        Win,
        Lose,
        BasicInfo,
        Value,
    }

    fn triggers() -> Vec<Trigger> {
        let mut all: Vec<Trigger> = DealStage::ALL.iter().map(|s| Trigger::MoveTo(*s)).collect();
        all.extend([Trigger::Win, Trigger::Lose, Trigger::BasicInfo, Trigger::Value]);
        all
    }

    /// What a trigger did: the new stage (None for no stage change), or the error code.
    fn fire(deal: &Deal, trigger: Trigger) -> Result<Option<DealStage>, &'static str> {
        let stage_of = |t: StageTransition| Some(t.deal.stage);
        let result = match trigger {
            Trigger::MoveTo(stage) => deal.move_to(stage, NOW).map(|t| t.and_then(stage_of)),
            Trigger::Win => deal.win(CLOSE, NOW).map(stage_of),
            Trigger::Lose => deal.lose(CLOSE, Some("budget".into()), NOW).map(stage_of),
            Trigger::BasicInfo => deal.update_basic_info(Some("Renamed".into()), None, NOW).map(|_| None),
            Trigger::Value => deal.update_value(5, usd(), NOW).map(|_| None),
        };
        result.map_err(|e| e.code())
    }

    fn expected(from: DealStage, trigger: Trigger) -> Result<Option<DealStage>, &'static str> {
        match (from.is_closed(), trigger) {
            (true, Trigger::MoveTo(_) | Trigger::Win | Trigger::Lose) => Err("MOVE_STAGE_FAILED"),
            (true, Trigger::BasicInfo | Trigger::Value) => Err("DEAL_CLOSED"),
            (false, Trigger::MoveTo(to)) if to == from => Ok(None),
            (false, Trigger::MoveTo(to)) => Ok(Some(to)),
            (false, Trigger::Win) => Ok(Some(DealStage::ClosedWon)),
            (false, Trigger::Lose) => Ok(Some(DealStage::ClosedLost)),
            (false, Trigger::BasicInfo | Trigger::Value) => Ok(None),
        }
    }

    #[test]
    fn every_stage_times_every_trigger() {
        for &from in DealStage::ALL {
            let deal = deal_in(from);
            for trigger in triggers() {
                assert_eq!(fire(&deal, trigger), expected(from, trigger), "{from} {trigger:?}");
            }
        }
    }

    #[test]
    fn error_kinds() {
        let closed = deal_in(DealStage::ClosedWon);
        let moved = closed.move_to(DealStage::Lead, NOW).expect_err("closed");
        assert_eq!(
            (moved.kind(), moved),
            (ErrorKind::Validation, DealError::MoveStageFailed { stage: DealStage::ClosedWon })
        );
        let edited = closed.update_value(1, usd(), NOW).expect_err("closed");
        assert_eq!((edited.kind(), edited), (ErrorKind::Conflict, DealError::Closed { stage: DealStage::ClosedWon }));
    }

    #[test]
    fn basic_info_and_value_updates() {
        let deal = deal_in(DealStage::Qualified);
        let renamed =
            deal.update_basic_info(Some(" New name ".into()), Some(date!(2026 - 12 - 31)), NOW).expect("valid");
        assert_eq!((renamed.name.as_str(), renamed.expected_close_date), ("New name", date!(2026 - 12 - 31)));
        assert_eq!(renamed.updated_at, NOW);
        let untouched = deal.update_basic_info(None, None, NOW).expect("valid");
        assert_eq!((untouched.name, untouched.expected_close_date), (deal.name.clone(), deal.expected_close_date));
        let past = deal.update_basic_info(None, Some(TODAY), NOW).expect_err("not in the future");
        assert_eq!(past.field(), Some("expected_close_date"));
        assert_eq!(deal.update_basic_info(Some("n".repeat(201)), None, NOW).expect_err("long").field(), Some("name"));
        let eur = CurrencyCode::parse("eur").expect("valid");
        let revalued = deal.update_value(99, eur, NOW).expect("valid");
        assert_eq!(revalued.money(), Money::new(99, eur));
        assert_eq!(deal.update_value(0, eur, NOW).expect_err("not positive").field(), Some("value"));
    }
}
