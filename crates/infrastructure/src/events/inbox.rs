//! The inbox: a handler's work for one event runs at most once.

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::schema::inbox;

/// Marks `(event_id, handler)` as handled. Call it first inside the
/// transaction that does the handler's work: `false` means an earlier
/// delivery already did it, so skip the work. Because the mark commits or
/// rolls back with the work, a failed attempt leaves no mark and a retry
/// runs again.
pub async fn mark_handled(conn: &mut AsyncPgConnection, event_id: Uuid, handler: &str) -> QueryResult<bool> {
    let inserted = diesel::insert_into(inbox::table)
        .values((inbox::event_id.eq(event_id), inbox::handler.eq(handler)))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    Ok(inserted == 1)
}
