//! Interaction rows: loading and inserting.

use crm_domain::{Direction, Interaction, InteractionType, Outcome, RepoError};
use diesel::prelude::*;
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::corrupt;
use super::schema::interactions;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = interactions)]
pub(crate) struct InteractionRow {
    id: Uuid,
    customer_id: Uuid,
    company_id: Option<Uuid>,
    interaction_type: String,
    direction: String,
    outcome: Option<String>,
    subject: String,
    description: Option<String>,
    created_by: Uuid,
    attendees: Vec<Uuid>,
    started_at: OffsetDateTime,
    ended_at: Option<OffsetDateTime>,
    duration_sec: Option<i64>,
    follow_up_required: bool,
    follow_up_date: Option<OffsetDateTime>,
    follow_up_notes: Option<String>,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    deleted_at: Option<OffsetDateTime>,
    version: i64,
}

impl TryFrom<InteractionRow> for Interaction {
    type Error = RepoError;

    fn try_from(r: InteractionRow) -> Result<Self, RepoError> {
        let outcome = match r.outcome.as_deref() {
            None => None,
            Some(text) => Some(Outcome::parse(text).map_err(|_| corrupt("outcome", text))?),
        };
        Ok(Interaction {
            version: r.version,
            interaction_type: InteractionType::parse(&r.interaction_type)
                .map_err(|_| corrupt("type", &r.interaction_type))?,
            direction: Direction::parse(&r.direction).map_err(|_| corrupt("direction", &r.direction))?,
            outcome,
            id: r.id,
            customer_id: r.customer_id,
            company_id: r.company_id,
            subject: r.subject,
            description: r.description,
            created_by: r.created_by,
            attendees: r.attendees,
            started_at: r.started_at,
            ended_at: r.ended_at,
            duration_sec: r.duration_sec,
            follow_up_required: r.follow_up_required,
            follow_up_date: r.follow_up_date,
            follow_up_notes: r.follow_up_notes,
            created_at: r.created_at,
            updated_at: r.updated_at,
            deleted_at: r.deleted_at,
        })
    }
}

impl From<&Interaction> for InteractionRow {
    fn from(i: &Interaction) -> Self {
        InteractionRow {
            version: i.version,
            id: i.id,
            customer_id: i.customer_id,
            company_id: i.company_id,
            interaction_type: i.interaction_type.as_str().to_owned(),
            direction: i.direction.as_str().to_owned(),
            outcome: i.outcome.map(|o| o.as_str().to_owned()),
            subject: i.subject.clone(),
            description: i.description.clone(),
            created_by: i.created_by,
            attendees: i.attendees.clone(),
            started_at: i.started_at,
            ended_at: i.ended_at,
            duration_sec: i.duration_sec,
            follow_up_required: i.follow_up_required,
            follow_up_date: i.follow_up_date,
            follow_up_notes: i.follow_up_notes.clone(),
            created_at: i.created_at,
            updated_at: i.updated_at,
            deleted_at: i.deleted_at,
        }
    }
}
