//! Dead letters: events a handler still failed after the last retry.

use crate::counting;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use serde::Serialize;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::db::DbError;
use crate::prepared::Prepared;
use crate::schema::dead_letters;
use crate::DbPool;

#[derive(Debug, Clone, Queryable, Selectable, Serialize)]
#[diesel(table_name = dead_letters)]
pub struct DeadLetter {
    pub id: Uuid,
    pub event_id: Uuid,
    pub event_name: String,
    pub handler: String,
    pub event: serde_json::Value,
    pub last_error: String,
    pub attempts: i32,
    #[serde(with = "time::serde::rfc3339")]
    pub failed_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub requeued_at: Option<OffsetDateTime>,
}

/// Where a bus puts what it gave up on.
#[async_trait]
pub trait DeadLetterSink: Send + Sync {
    async fn record(&self, event: &EventEnvelope, handler: &str, error: &str, attempts: u32);
}

#[derive(Clone)]
pub struct PgDeadLetterStore {
    pool: DbPool,
}

impl PgDeadLetterStore {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// Open dead letters (not re-queued), newest first.
    pub async fn list(&self, request: PageRequest) -> Result<Page<DeadLetter>, DbError> {
        let conn = crate::db::checkout(&self.pool).await?;
        let open = dead_letters::table.filter(dead_letters::requeued_at.is_null());
        let (items, total) = counting::list_page!(
            &conn,
            request,
            open,
            open.order((dead_letters::failed_at.desc(), dead_letters::id.desc()))
                .offset(request.offset())
                .limit(request.limit())
                .select(DeadLetter::as_select())
        )
        .await?;
        Ok(Page::new(items, total, request))
    }

    /// Marks an open dead letter as re-queued and returns it; `None` when it
    /// does not exist or was re-queued already. The conditional update makes
    /// two simultaneous retries re-queue it once.
    pub async fn take_for_retry(&self, id: Uuid) -> Result<Option<DeadLetter>, DbError> {
        let mut conn = crate::db::checkout(&self.pool).await?;
        let taken = Prepared(
            diesel::update(dead_letters::table)
                .filter(dead_letters::id.eq(id))
                .filter(dead_letters::requeued_at.is_null())
                .set(dead_letters::requeued_at.eq(diesel::dsl::now))
                .returning(DeadLetter::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .optional()?;
        Ok(taken)
    }

    /// Undoes `take_for_retry` when the bus refused the event.
    pub async fn reopen(&self, id: Uuid) -> Result<(), DbError> {
        let mut conn = crate::db::checkout(&self.pool).await?;
        Prepared(
            diesel::update(dead_letters::table.find(id)).set(dead_letters::requeued_at.eq(None::<OffsetDateTime>)),
        )
        .execute(&mut conn)
        .await?;
        Ok(())
    }

    pub async fn count_open(&self) -> Result<i64, DbError> {
        let mut conn = crate::db::checkout(&self.pool).await?;
        Ok(dead_letters::table.filter(dead_letters::requeued_at.is_null()).count().get_result(&mut conn).await?)
    }
}

#[async_trait]
impl DeadLetterSink for PgDeadLetterStore {
    async fn record(&self, event: &EventEnvelope, handler: &str, error: &str, attempts: u32) {
        let stored = async {
            let mut conn = self.pool.get().await?;
            let envelope = serde_json::to_value(event).unwrap_or(serde_json::Value::Null);
            Prepared(diesel::insert_into(dead_letters::table).values((
                dead_letters::id.eq(shared_kernel::new_id()),
                dead_letters::event_id.eq(event.id),
                dead_letters::event_name.eq(&event.name),
                dead_letters::handler.eq(handler),
                dead_letters::event.eq(envelope),
                dead_letters::last_error.eq(error),
                dead_letters::attempts.eq(i32::try_from(attempts).unwrap_or(i32::MAX)),
            )))
            .execute(&mut conn)
            .await?;
            Ok::<_, DbError>(())
        }
        .await;
        if let Err(e) = stored {
            tracing::error!(event_id = %event.id, handler, error = %e, "could not store dead letter");
        }
    }
}
