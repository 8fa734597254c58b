//! Stage moves: an open deal may go to any stage (earlier ones too); a closed deal never moves.
//!
//! `move_to`, `win` and `lose` all end in `change_stage`, the one place where probability, close data,
//! the history row and the events follow from the new stage. Moving to a closed stage through
//! `/stage` closes the deal today and emits won/lost exactly like `/win` and `/lose`.

use time::{Date, OffsetDateTime};

use super::{today, Deal, DealError, StageChange, StageTransition};
use crate::enums::DealStage;
use crate::events::{DealLost, DealStageChanged, DealWon, Topic};
use crate::validate::free_text;

impl Deal {
    /// `PUT .../stage`. `Ok(None)` when the deal already is in `stage` (nothing to save). A closed
    /// target sets `actual_close_date` to today and emits won/lost like `/win` and `/lose`.
    pub fn move_to(&self, stage: DealStage, now: OffsetDateTime) -> Result<Option<StageTransition>, DealError> {
        self.ensure_open_for_move()?;
        if stage == self.stage {
            return Ok(None);
        }
        let close_date = stage.is_closed().then(|| today(now));
        Ok(Some(self.change_stage(stage, close_date, None, now)))
    }

    /// `POST .../win`: closes the deal as won on `close_date` (any date the caller accepts);
    /// `MoveStageFailed` for a closed deal.
    pub fn win(&self, close_date: Date, now: OffsetDateTime) -> Result<StageTransition, DealError> {
        self.ensure_open_for_move()?;
        Ok(self.change_stage(DealStage::ClosedWon, Some(close_date), None, now))
    }

    /// `POST .../lose`: closes the deal as lost on `close_date`, with a trimmed reason (blank counts
    /// as none); `MoveStageFailed` for a closed deal.
    pub fn lose(
        &self,
        close_date: Date,
        reason: Option<String>,
        now: OffsetDateTime,
    ) -> Result<StageTransition, DealError> {
        self.ensure_open_for_move()?;
        let reason = free_text(reason).map(|r| r.trim().to_owned());
        Ok(self.change_stage(DealStage::ClosedLost, Some(close_date), reason, now))
    }

    fn ensure_open_for_move(&self) -> Result<(), DealError> {
        if self.stage.is_closed() {
            Err(DealError::MoveStageFailed { stage: self.stage })
        } else {
            Ok(())
        }
    }

    /// The one place a stage changes: probability, close data, history and events follow from it.
    fn change_stage(
        &self,
        to: DealStage,
        close_date: Option<Date>,
        loss_reason: Option<String>,
        now: OffsetDateTime,
    ) -> StageTransition {
        let from = self.stage;
        let deal = Deal {
            stage: to,
            probability: to.probability(),
            actual_close_date: close_date,
            loss_reason,
            updated_at: now,
            ..self.clone()
        };
        let customer_id = self.customer_id;
        let stage_changed =
            DealStageChanged { customer_id, from: from.as_str().to_owned(), to: to.as_str().to_owned() };
        let mut events = vec![stage_changed.to_event(self.id, now)];
        match to {
            DealStage::ClosedWon => events.push(
                DealWon { customer_id, value: self.value, currency: self.currency, close_date }.to_event(self.id, now),
            ),
            DealStage::ClosedLost => events
                .push(DealLost { customer_id, reason: deal.loss_reason.clone(), close_date }.to_event(self.id, now)),
            DealStage::Lead | DealStage::Qualified | DealStage::Proposal | DealStage::Negotiation => {}
        }
        StageTransition { deal, from, history: StageChange { from: Some(from), to, at: now }, events }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{deal_in, CLOSE, NOW, TODAY};
    use super::*;
    use serde_json::json;
    use uuid::Uuid;

    #[test]
    fn moves_set_probability_history_and_events() {
        for &from in DealStage::ALL.iter().filter(|s| !s.is_closed()) {
            for &to in DealStage::ALL.iter().filter(|s| **s != from) {
                let t = deal_in(from).move_to(to, NOW).expect("open").expect("a change");
                assert_eq!(
                    (t.from, t.deal.stage, t.deal.probability, t.deal.updated_at),
                    (from, to, to.probability(), NOW)
                );
                assert_eq!(t.history, StageChange { from: Some(from), to, at: NOW });
                assert_eq!(t.deal.actual_close_date, to.is_closed().then_some(TODAY), "{from} -> {to}");
                let names: Vec<&str> = t.events.iter().map(|e| e.name.as_str()).collect();
                let expected: Vec<&str> = match to {
                    DealStage::ClosedWon => vec!["customer.deal.stage_changed", "customer.deal.won"],
                    DealStage::ClosedLost => vec!["customer.deal.stage_changed", "customer.deal.lost"],
                    _ => vec!["customer.deal.stage_changed"],
                };
                assert_eq!(names, expected, "{from} -> {to}");
                assert_eq!(
                    t.events[0].data,
                    json!({"customer_id": Uuid::nil(), "from": from.as_str(), "to": to.as_str()})
                );
            }
        }
    }

    #[test]
    fn win_and_lose_record_close_data() {
        let won = deal_in(DealStage::Proposal).win(CLOSE, NOW).expect("open");
        assert_eq!(
            (won.deal.stage, won.deal.probability, won.deal.actual_close_date),
            (DealStage::ClosedWon, 100, Some(CLOSE))
        );
        assert_eq!(
            won.events[1].data,
            json!({"customer_id": Uuid::nil(), "value": 120_000, "currency": "USD", "close_date": "2026-02-20"})
        );
        let lost = deal_in(DealStage::Negotiation).lose(CLOSE, Some(" budget cut ".into()), NOW).expect("open");
        assert_eq!((lost.deal.stage, lost.deal.probability), (DealStage::ClosedLost, 0));
        assert_eq!((lost.deal.actual_close_date, lost.deal.loss_reason.as_deref()), (Some(CLOSE), Some("budget cut")));
        assert_eq!(
            lost.events[1].data,
            json!({"customer_id": Uuid::nil(), "reason": "budget cut", "close_date": "2026-02-20"})
        );
        let via_stage = deal_in(DealStage::Lead).move_to(DealStage::ClosedLost, NOW).expect("open").expect("change");
        assert_eq!(
            via_stage.events[1].data,
            json!({"customer_id": Uuid::nil(), "reason": null, "close_date": "2026-03-02"})
        );
    }
}
