//! The inbox: a handler's work for one event runs at most once.
//!
//! A consumer's adapter is bound to the [`Delivery`] it works for and claims
//! it first inside the transaction that does the work, so the domain ports
//! never see event ids: the mark commits or rolls back with the work, a failed
//! attempt leaves no mark, and a redelivery finds the mark and does nothing.

use std::collections::HashSet;

use diesel::prelude::*;
use diesel::sql_types::{Array, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;

use crate::prepared::Prepared;

/// Claims deliveries of one handler, in the order of the ids given; one text for any number of them.
const CLAIM_EVENTS: &str = "INSERT INTO inbox (event_id, handler) \
     SELECT v.event_id, $2 FROM unnest($1::uuid[]) WITH ORDINALITY AS v(event_id, n) ORDER BY v.n \
     ON CONFLICT DO NOTHING RETURNING event_id";

#[derive(QueryableByName)]
struct ClaimedEvent {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    event_id: Uuid,
}

/// One delivery of an event to a handler: the inbox key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub event_id: Uuid,
    /// The handler's stable name (`EventHandler::name`).
    pub handler: &'static str,
}

impl Delivery {
    pub fn new(event_id: Uuid, handler: &'static str) -> Self {
        Self { event_id, handler }
    }

    /// Marks the delivery handled; call it first inside the work's
    /// transaction. `false`: an earlier delivery did the work, skip it.
    /// (On a shared reference, so the work's first statements can be sent behind it, pipelined.)
    pub async fn claim(self, conn: &AsyncPgConnection) -> QueryResult<bool> {
        Ok(Self::claim_all(conn, self.handler, &[self.event_id]).await?.contains(&self.event_id))
    }

    /// `claim` for several events of one handler in one statement, kept prepared whatever their
    /// number: the ids this call claimed, i.e. those no earlier delivery handled.
    pub async fn claim_all(
        mut conn: &AsyncPgConnection,
        handler: &'static str,
        event_ids: &[Uuid],
    ) -> QueryResult<HashSet<Uuid>> {
        // In id order (the statement inserts in the array's order), so two batches claiming some of
        // the same events cannot deadlock.
        let mut sorted = event_ids.to_vec();
        sorted.sort_unstable();
        let claimed: Vec<ClaimedEvent> = Prepared(
            diesel::sql_query(CLAIM_EVENTS).bind::<Array<diesel::sql_types::Uuid>, _>(sorted).bind::<Text, _>(handler),
        )
        .get_results(&mut conn)
        .await?;
        Ok(claimed.into_iter().map(|c| c.event_id).collect())
    }
}
