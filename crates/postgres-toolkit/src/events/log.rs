//! The recorded event log (the outbox rows), for `GET /events`.

use crate::counting;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::DbError;
use crate::schema::outbox_events;
use crate::DbPool;

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = outbox_events)]
pub struct RecordedEvent {
    pub id: Uuid,
    pub name: String,
    pub aggregate_id: Uuid,
    pub occurred_at: OffsetDateTime,
    pub data: serde_json::Value,
    pub published_at: Option<OffsetDateTime>,
}

#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub name: Option<String>,
    pub aggregate_id: Option<Uuid>,
    pub since: Option<OffsetDateTime>,
}

pub async fn list_events(
    pool: &DbPool,
    filter: &EventFilter,
    request: PageRequest,
) -> Result<Page<RecordedEvent>, DbError> {
    let conn = crate::db::checkout(pool).await?;
    let query = || {
        let mut query = outbox_events::table.into_boxed();
        if let Some(name) = &filter.name {
            query = query.filter(outbox_events::name.eq(name.clone()));
        }
        if let Some(aggregate_id) = filter.aggregate_id {
            query = query.filter(outbox_events::aggregate_id.eq(aggregate_id));
        }
        if let Some(since) = filter.since {
            query = query.filter(outbox_events::occurred_at.ge(since));
        }
        query
    };
    let (items, total) = counting::list_page!(
        &conn,
        request,
        query(),
        query()
            .order((outbox_events::occurred_at.desc(), outbox_events::id.desc()))
            .offset(request.offset())
            .limit(request.limit())
            .select(RecordedEvent::as_select())
    )
    .await?;
    Ok(Page::new(items, total, request))
}

/// Age in seconds of the oldest event not yet handed to the bus (0 if none).
pub async fn outbox_lag_seconds(pool: &DbPool) -> Result<f64, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let oldest: Option<OffsetDateTime> = outbox_events::table
        .filter(outbox_events::published_at.is_null())
        .select(diesel::dsl::min(outbox_events::occurred_at))
        .first(&mut conn)
        .await?;
    Ok(oldest.map_or(0.0, |at| (OffsetDateTime::now_utc() - at).as_seconds_f64().max(0.0)))
}
