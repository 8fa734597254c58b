//! Interaction aggregate: one logged call, email, meeting, note, sms or chat with a customer.
//!
//! There is no status: an interaction is in progress while `ended_at` is `None`. Ending it is the only
//! one-way step (`INTERACTION_ALREADY_ENDED`, 409, the second time) and the only way `duration_sec` is
//! set, so the duration always equals `ended_at − started_at`. Attendees form a set: adding one twice
//! is a no-op. Whether attendees and the creator exist as users is the caller's check.

use shared_kernel::error::{Classified, ErrorKind};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::enums::{Direction, InteractionType, Outcome};
use crate::error::FieldError;
use crate::validate::{free_text, required_text};

/// The longest subject, in characters after trimming.
pub const MAX_SUBJECT_CHARS: usize = 255;
/// The most attendees one interaction may be logged with (docs/conventions.md, "Bounded input"),
/// counted as sent.
pub const MAX_ATTENDEES: usize = 100;

/// Why an interaction operation was refused; [`Classified`] gives each case its kind and wire code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InteractionError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid {
        /// The request field at fault.
        field: &'static str,
        /// The rule it broke.
        message: String,
    },
    /// `INTERACTION_ALREADY_ENDED` 409.
    #[error("the interaction has already ended")]
    AlreadyEnded,
    /// `NOT_FOUND` 404: removing a user who is not an attendee.
    #[error("the user is not an attendee")]
    AttendeeNotFound,
}

impl InteractionError {
    /// The request field at fault, for the error's `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            InteractionError::Invalid { field, .. } => Some(field),
            InteractionError::AlreadyEnded | InteractionError::AttendeeNotFound => None,
        }
    }
}

impl Classified for InteractionError {
    fn kind(&self) -> ErrorKind {
        match self {
            InteractionError::Invalid { .. } => ErrorKind::Validation,
            InteractionError::AlreadyEnded => ErrorKind::Conflict,
            InteractionError::AttendeeNotFound => ErrorKind::NotFound,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            InteractionError::Invalid { .. } => "VALIDATION_ERROR",
            InteractionError::AlreadyEnded => "INTERACTION_ALREADY_ENDED",
            InteractionError::AttendeeNotFound => "NOT_FOUND",
        }
    }
}

impl From<FieldError> for InteractionError {
    fn from(e: FieldError) -> Self {
        InteractionError::Invalid { field: e.field, message: e.message }
    }
}

/// A logged interaction as stored. Build one with [`Interaction::new`]; adapters fill the fields
/// when loading rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interaction {
    /// The interaction's identity.
    pub id: Uuid,
    /// The customer it was with.
    pub customer_id: Uuid,
    /// The company it concerns; one logged without it takes its customer's company
    /// (docs/customer-management.md).
    pub company_id: Option<Uuid>,
    /// `type` on the wire.
    pub interaction_type: InteractionType,
    /// Who started it.
    pub direction: Direction,
    /// How it went, once known.
    pub outcome: Option<Outcome>,
    /// What it was about, trimmed, 1..=[`MAX_SUBJECT_CHARS`] characters.
    pub subject: String,
    /// Free text, kept as written; absent when blank.
    pub description: Option<String>,
    /// The user who logged it.
    pub created_by: Uuid,
    /// User ids, no duplicates, first-added order.
    pub attendees: Vec<Uuid>,
    /// When it started.
    pub started_at: OffsetDateTime,
    /// When it ended; `None` while in progress.
    pub ended_at: Option<OffsetDateTime>,
    /// Computed by [`Interaction::end`]; never set directly.
    pub duration_sec: Option<i64>,
    /// Whether someone must follow up.
    pub follow_up_required: bool,
    /// When to follow up, if said.
    pub follow_up_date: Option<OffsetDateTime>,
    /// What the follow-up is about, kept as written.
    pub follow_up_notes: Option<String>,
    /// When it was logged.
    pub created_at: OffsetDateTime,
    /// When it last changed.
    pub updated_at: OffsetDateTime,
    /// When it was soft-deleted; repositories never return deleted interactions.
    pub deleted_at: Option<OffsetDateTime>,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// Raw creation input; [`Interaction::new`] validates it.
#[derive(Debug, Clone)]
pub struct NewInteraction {
    /// The customer it was with.
    pub customer_id: Uuid,
    /// The company it concerns, if given.
    pub company_id: Option<Uuid>,
    /// Its channel.
    pub interaction_type: InteractionType,
    /// Who started it.
    pub direction: Direction,
    /// What it was about, 1..=[`MAX_SUBJECT_CHARS`] characters after trimming.
    pub subject: String,
    /// Free text; blank means none.
    pub description: Option<String>,
    /// The authenticated user who logs it.
    pub created_by: Uuid,
    /// At most [`MAX_ATTENDEES`] user ids as sent; duplicates are dropped.
    pub attendees: Vec<Uuid>,
    /// When it started (the caller bounds the year).
    pub started_at: OffsetDateTime,
}

/// At most [`MAX_ATTENDEES`] ids as sent, duplicates dropped in one pass (first-added order kept).
fn attendees(ids: &[Uuid]) -> Result<Vec<Uuid>, InteractionError> {
    shared_kernel::bounds::unique_bounded(ids, MAX_ATTENDEES)
        .map_err(|e| InteractionError::Invalid { field: "attendees", message: e.to_string() })
}

impl Interaction {
    /// Validates `input` into a new interaction in progress (fresh id, version 1, no outcome, no
    /// follow-up); `Invalid` naming `subject` or `attendees` otherwise.
    pub fn new(input: NewInteraction, now: OffsetDateTime) -> Result<Interaction, InteractionError> {
        Ok(Interaction {
            version: 1,
            id: shared_kernel::new_id(),
            customer_id: input.customer_id,
            company_id: input.company_id,
            interaction_type: input.interaction_type,
            direction: input.direction,
            outcome: None,
            subject: required_text("subject", &input.subject, MAX_SUBJECT_CHARS)?,
            description: free_text(input.description),
            created_by: input.created_by,
            attendees: attendees(&input.attendees)?,
            started_at: input.started_at,
            ended_at: None,
            duration_sec: None,
            follow_up_required: false,
            follow_up_date: None,
            follow_up_notes: None,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        })
    }

    /// Whether it has not ended yet.
    pub fn is_in_progress(&self) -> bool {
        self.ended_at.is_none()
    }

    /// `PUT .../end`: sets `ended_at` and `duration_sec` (whole seconds). Save with
    /// `InteractionRepository::save_end`, which applies it only while the row is still in progress.
    /// `AlreadyEnded` the second time; `Invalid { field: "ended_at" }` before `started_at`.
    pub fn end(&self, ended_at: OffsetDateTime, now: OffsetDateTime) -> Result<Interaction, InteractionError> {
        if !self.is_in_progress() {
            return Err(InteractionError::AlreadyEnded);
        }
        if ended_at < self.started_at {
            return Err(FieldError::new("ended_at", "must not precede started_at").into());
        }
        let duration = (ended_at - self.started_at).whole_seconds();
        Ok(Interaction { ended_at: Some(ended_at), duration_sec: Some(duration), updated_at: now, ..self.clone() })
    }

    /// `PUT .../content`: replaces subject and description (blank description clears it).
    pub fn update_content(
        &self,
        subject: &str,
        description: Option<String>,
        now: OffsetDateTime,
    ) -> Result<Interaction, InteractionError> {
        let subject = required_text("subject", subject, MAX_SUBJECT_CHARS)?;
        Ok(Interaction { subject, description: free_text(description), updated_at: now, ..self.clone() })
    }

    /// `PUT .../outcome`; `None` clears it.
    #[must_use]
    pub fn set_outcome(&self, outcome: Option<Outcome>, now: OffsetDateTime) -> Interaction {
        Interaction { outcome, updated_at: now, ..self.clone() }
    }

    /// `PUT .../follow-up`. A date is recommended, not required, when `required` is true.
    #[must_use]
    pub fn set_follow_up(
        &self,
        required: bool,
        date: Option<OffsetDateTime>,
        notes: Option<String>,
        now: OffsetDateTime,
    ) -> Interaction {
        Interaction {
            follow_up_required: required,
            follow_up_date: date,
            follow_up_notes: free_text(notes),
            updated_at: now,
            ..self.clone()
        }
    }

    /// `POST .../attendees`: adds a user. `Ok(None)` when the user already attends (nothing to
    /// save); at most [`MAX_ATTENDEES`] in all (`Invalid { field: "attendee_id" }` beyond).
    pub fn add_attendee(&self, user_id: Uuid, now: OffsetDateTime) -> Result<Option<Interaction>, InteractionError> {
        if self.attendees.contains(&user_id) {
            return Ok(None);
        }
        if self.attendees.len() >= MAX_ATTENDEES {
            return Err(InteractionError::Invalid {
                field: "attendee_id",
                message: format!("an interaction has at most {MAX_ATTENDEES} attendees"),
            });
        }
        let mut next = Interaction { updated_at: now, ..self.clone() };
        next.attendees.push(user_id);
        Ok(Some(next))
    }

    /// `DELETE .../attendees/:id`: removes a user; `AttendeeNotFound` when they do not attend.
    pub fn remove_attendee(&self, user_id: Uuid, now: OffsetDateTime) -> Result<Interaction, InteractionError> {
        if !self.attendees.contains(&user_id) {
            return Err(InteractionError::AttendeeNotFound);
        }
        let attendees = self.attendees.iter().copied().filter(|id| *id != user_id).collect();
        Ok(Interaction { attendees, updated_at: now, ..self.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;
    use time::Duration;

    const START: OffsetDateTime = datetime!(2026-03-01 10:00 UTC);
    const NOW: OffsetDateTime = datetime!(2026-03-01 12:00 UTC);

    fn user(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn input() -> NewInteraction {
        NewInteraction {
            customer_id: user(100),
            company_id: None,
            interaction_type: InteractionType::Call,
            direction: Direction::Outbound,
            subject: " Intro call ".into(),
            description: None,
            created_by: user(1),
            attendees: vec![user(2), user(3), user(2)],
            started_at: START,
        }
    }

    fn in_progress() -> Interaction {
        Interaction::new(input(), START).expect("valid")
    }

    #[test]
    fn creates_in_progress_with_unique_attendees() {
        let i = in_progress();
        assert!(i.is_in_progress());
        assert_eq!((i.subject.as_str(), i.duration_sec, i.outcome), ("Intro call", None, None));
        assert_eq!(i.attendees, vec![user(2), user(3)]);
        assert!(!i.follow_up_required);
    }

    #[test]
    fn attendees_are_bounded_as_sent_and_deduplicated() {
        let same = Interaction::new(NewInteraction { attendees: vec![user(9); MAX_ATTENDEES], ..input() }, NOW);
        assert_eq!(same.expect("100 is the limit").attendees, vec![user(9)]);
        let distinct: Vec<Uuid> = (0..100).map(user).collect();
        let all = Interaction::new(NewInteraction { attendees: distinct.clone(), ..input() }, NOW);
        assert_eq!(all.expect("100 distinct").attendees, distinct);
        for too_many in [vec![user(9); MAX_ATTENDEES + 1], (0..5000).map(user).collect()] {
            let refused = Interaction::new(NewInteraction { attendees: too_many, ..input() }, NOW);
            let error = refused.expect_err("over the limit");
            assert_eq!((error.code(), error.field()), ("VALIDATION_ERROR", Some("attendees")));
        }
    }

    #[test]
    fn subject_limit_is_255_characters() {
        assert!(Interaction::new(NewInteraction { subject: "s".repeat(255), ..input() }, NOW).is_ok());
        let long = Interaction::new(NewInteraction { subject: "s".repeat(256), ..input() }, NOW);
        assert_eq!(long.expect_err("too long").field(), Some("subject"));
        let blank = Interaction::new(NewInteraction { subject: " ".into(), ..input() }, NOW);
        assert_eq!(blank.expect_err("blank").code(), "VALIDATION_ERROR");
    }

    #[test]
    fn ending_computes_the_duration() {
        let ended = in_progress().end(START + Duration::seconds(90), NOW).expect("in progress");
        assert_eq!((ended.ended_at, ended.duration_sec), (Some(START + Duration::seconds(90)), Some(90)));
        assert!(!ended.is_in_progress());
        assert_eq!(ended.updated_at, NOW);
        let instant = in_progress().end(START, NOW).expect("same instant is fine");
        assert_eq!(instant.duration_sec, Some(0));
        let fractional = in_progress().end(START + Duration::milliseconds(1_999), NOW).expect("in progress");
        assert_eq!(fractional.duration_sec, Some(1), "whole seconds, truncated");
        let other_zone = in_progress().end(datetime!(2026-03-01 13:00 +02:00), NOW).expect("in progress");
        assert_eq!(other_zone.duration_sec, Some(3600));
    }

    #[test]
    fn ending_rules() {
        let before = in_progress().end(START - Duration::seconds(1), NOW).expect_err("before start");
        assert_eq!(
            (before.code(), before.kind(), before.field()),
            ("VALIDATION_ERROR", ErrorKind::Validation, Some("ended_at"))
        );
        let ended = in_progress().end(START + Duration::seconds(5), NOW).expect("in progress");
        let again = ended.end(START + Duration::seconds(10), NOW).expect_err("already ended");
        assert_eq!((again.code(), again.kind()), ("INTERACTION_ALREADY_ENDED", ErrorKind::Conflict));
        let again_before = ended.end(START - Duration::seconds(10), NOW).expect_err("already ended wins");
        assert_eq!(again_before, InteractionError::AlreadyEnded);
    }

    #[test]
    fn content_outcome_and_follow_up() {
        let i = in_progress();
        let edited = i.update_content(" Demo ", Some("Showed the pipeline".into()), NOW).expect("valid");
        assert_eq!((edited.subject.as_str(), edited.description.as_deref()), ("Demo", Some("Showed the pipeline")));
        assert_eq!(i.update_content(&"s".repeat(256), None, NOW).expect_err("long").field(), Some("subject"));
        assert_eq!(i.update_content("ok", Some("  ".into()), NOW).expect("valid").description, None);

        let with_outcome = i.set_outcome(Some(Outcome::NoAnswer), NOW);
        assert_eq!((with_outcome.outcome, with_outcome.updated_at), (Some(Outcome::NoAnswer), NOW));
        assert_eq!(with_outcome.set_outcome(None, NOW).outcome, None);

        let due = datetime!(2026-03-08 09:00 UTC);
        let follow = i.set_follow_up(true, Some(due), Some("send pricing".into()), NOW);
        assert_eq!((follow.follow_up_required, follow.follow_up_date), (true, Some(due)));
        assert_eq!(follow.follow_up_notes.as_deref(), Some("send pricing"));
        let cleared = follow.set_follow_up(false, None, None, NOW);
        assert_eq!((cleared.follow_up_required, cleared.follow_up_date, cleared.follow_up_notes), (false, None, None));
    }

    #[test]
    fn attendees_form_a_set() {
        let i = in_progress();
        assert_eq!(i.add_attendee(user(2), NOW), Ok(None), "duplicate is a no-op");
        let added = i.add_attendee(user(4), NOW).expect("valid").expect("new attendee");
        assert_eq!((added.attendees.clone(), added.updated_at), (vec![user(2), user(3), user(4)], NOW));
        let removed = added.remove_attendee(user(3), NOW).expect("attends");
        assert_eq!(removed.attendees, vec![user(2), user(4)]);
        let missing = removed.remove_attendee(user(3), NOW).expect_err("no longer attends");
        assert_eq!((missing.code(), missing.kind()), ("NOT_FOUND", ErrorKind::NotFound));
    }

    #[test]
    fn adding_one_by_one_stops_at_the_bound() {
        let ids: Vec<Uuid> = (0..MAX_ATTENDEES as u128).map(Uuid::from_u128).collect();
        let full = Interaction::new(NewInteraction { attendees: ids, ..input() }, NOW).expect("exactly the bound");
        let error = full.add_attendee(Uuid::from_u128(1_000_000), NOW).expect_err("one more");
        assert!(matches!(error, InteractionError::Invalid { field: "attendee_id", .. }));
        assert_eq!(full.add_attendee(Uuid::from_u128(0), NOW), Ok(None), "an existing attendee is still a no-op");
    }
}
