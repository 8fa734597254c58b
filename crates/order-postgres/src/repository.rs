//! `OrderRepository` on PostgreSQL: numbers from a per-year counter row, compare-and-set saves,
//! events in the outbox of the same transaction.

use postgres_toolkit::counting;
use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::Integer;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join3;
use order_domain::{
    Order, OrderChange, OrderDeletion, OrderDraft, OrderFilter, OrderNumber, OrderRepository, RepoError,
};
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::errors::{from_diesel, tx_error, TxError, CONSTRAINTS};
use super::rows::{LineRow, OrderRow};
use super::schema::{order_lines, orders};
use super::store;
use postgres_toolkit::events::record_event;
use postgres_toolkit::pipeline::{transaction, transaction_opened, Opening};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::shared_commit::{SharedCommit, TransactionWrite, WriteError};
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Clone)]
pub struct PgOrderRepository {
    pool: DbPool,
    changes: SharedCommit<Saving>,
}

impl PgOrderRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { changes: SharedCommit::new(pool.clone()), pool }
    }

    /// (transactions, changes) the saves have taken so far: how many shared a commit.
    pub fn save_counts(&self) -> (u64, u64) {
        self.changes.counts()
    }
}

/// An order's change (a status move, a line edit) and its events: a write that may share a commit.
struct Saving(OrderChange);

#[async_trait]
impl TransactionWrite for Saving {
    type Written = ();
    type Key = Uuid;

    fn key(&self) -> Uuid {
        self.0.order.id
    }

    async fn write(&self, conn: &AsyncPgConnection) -> Result<(), diesel::result::Error> {
        Self::write_together(&[self], conn).await.map(|_| ())
    }

    /// One `UPDATE` for every header, one insert for every event; a change that missed its
    /// compare-and-set rolls the batch back, and the shared commit does each again alone.
    async fn write_together(writes: &[&Self], conn: &AsyncPgConnection) -> Result<Vec<()>, diesel::result::Error> {
        let changes: Vec<&OrderChange> = writes.iter().map(|write| &write.0).collect();
        match store::write_changes(conn, &changes).await? {
            true => Ok(vec![(); writes.len()]),
            false => Err(diesel::result::Error::RollbackTransaction),
        }
    }
}

#[derive(QueryableByName)]
struct Counter {
    #[diesel(sql_type = Integer)]
    last: i32,
}

/// Start of the UTC day.
fn day_start(date: time::Date) -> OffsetDateTime {
    date.midnight().assume_utc()
}

#[async_trait]
impl OrderRepository for PgOrderRepository {
    #[tracing::instrument(name = "pg_orders.create", skip_all, fields(order_id = %draft.id()))]
    async fn create(&self, draft: OrderDraft) -> Result<Order, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let created = transaction(&mut conn, async |shared: &AsyncPgConnection| -> Result<Order, TxError> {
            let mut conn = shared;
            // The upsert locks the year's row until commit, so concurrent creates queue here and
            // every number is used once.
            let counter: Counter = diesel::sql_query(
                "INSERT INTO order_counters (year, last) VALUES ($1, 1) \
                 ON CONFLICT (year) DO UPDATE SET last = order_counters.last + 1 RETURNING last",
            )
            .bind::<Integer, _>(draft.year())
            .get_result(&mut conn)
            .await?;
            let sequence = u32::try_from(counter.last).unwrap_or(0);
            let number = OrderNumber::new(draft.year(), sequence)
                .map_err(|e| TxError::Refused(RepoError::Unknown(format!("order number: {e}"))))?;
            let (order, events) =
                draft.into_order(number).map_err(|e| TxError::Refused(RepoError::Unknown(format!("order: {e}"))))?;
            // The order, the lines given at creation (`items`) and the events are sent at once,
            // pipelined (the lines' insert, not kept prepared, adds its preparation's round trip).
            // A failure of any of them rolls all of them back.
            let mut shared = shared;
            let header = OrderRow::of(order.record());
            let lines: Vec<LineRow> = order.lines.iter().map(|line| LineRow::of(line.record())).collect();
            let insert_lines = async move {
                let mut conn = shared;
                if !lines.is_empty() {
                    // Not kept prepared: one text per number of lines, and the client decides that number.
                    diesel::insert_into(order_lines::table).values(&lines).execute(&mut conn).await?;
                }
                Ok(())
            };
            try_join3(
                Prepared(diesel::insert_into(orders::table).values(&header)).execute(&mut shared),
                insert_lines,
                record_event(shared, &events),
            )
            .await?;
            Ok(order)
        })
        .await
        .map_err(tx_error)?;
        // The `order.created` event waits in the outbox: wake the relay (a request transaction's
        // own commit wakes it again, docs/architecture.md "The path of an event").
        self.pool.wake_relay();
        Ok(created)
    }

    #[tracing::instrument(name = "pg_orders.get", skip_all, fields(order_id = %id))]
    async fn get(&self, id: Uuid) -> Result<Order, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let (row, lines) = store::load(&conn, id).await.map_err(from_diesel)?.ok_or(RepoError::NotFound)?;
        row.into_order(lines)
    }

    #[tracing::instrument(name = "pg_orders.get_by_number", skip_all, fields(order_number = %number))]
    async fn get_by_number(&self, number: &OrderNumber) -> Result<Order, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        let id: Uuid = orders::table
            .filter(orders::order_number.eq(number.to_string()).and(orders::deleted_at.is_null()))
            .select(orders::id)
            .first(&mut &*conn)
            .await
            .map_err(from_diesel)?;
        let (row, lines) = store::load(&conn, id).await.map_err(from_diesel)?.ok_or(RepoError::NotFound)?;
        row.into_order(lines)
    }

    #[tracing::instrument(name = "pg_orders.list", skip_all, fields(offset = page.offset()))]
    async fn list(&self, filter: &OrderFilter, page: PageRequest) -> Result<Page<Order>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let query = || {
            let mut query = orders::table.filter(orders::deleted_at.is_null()).into_boxed();
            if let Some(status) = filter.status {
                query = query.filter(orders::status.eq(status.as_str()));
            }
            if let Some(customer_id) = filter.customer_id {
                query = query.filter(orders::customer_id.eq(customer_id));
            }
            if let Some(from) = filter.date_from {
                query = query.filter(orders::created_at.ge(day_start(from)));
            }
            // Inclusive: everything before the start of the next day.
            if let Some(next) = filter.date_to.and_then(time::Date::next_day) {
                query = query.filter(orders::created_at.lt(day_start(next)));
            }
            query
        };
        // The page, its total and the page's lines in one snapshot (docs/bounded-work.md).
        let (rows, total, all_lines) = transaction_opened(&mut conn, Opening::Snapshot, async |conn| {
            let (rows, total): (Vec<OrderRow>, _) = counting::list_page!(
                conn,
                page,
                query(),
                query()
                    .order((orders::created_at.desc(), orders::id.desc()))
                    .offset(page.offset())
                    .limit(page.limit())
                    .select(OrderRow::as_select())
            )
            .await?;
            let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
            let mut shared = conn;
            let all_lines: Vec<LineRow> = order_lines::table
                .filter(order_lines::order_id.eq_any(&ids))
                .order((order_lines::order_id.asc(), order_lines::created_at.asc(), order_lines::id.asc()))
                .select(LineRow::as_select())
                .load(&mut shared)
                .await?;
            QueryResult::Ok((rows, total, all_lines))
        })
        .await
        .map_err(from_diesel)?;
        let mut lines: HashMap<Uuid, Vec<LineRow>> = HashMap::new();
        for line in all_lines {
            lines.entry(line.order_id).or_default().push(line);
        }
        let orders = rows
            .into_iter()
            .map(|row| {
                let own = lines.remove(&row.id).unwrap_or_default();
                row.into_order(own)
            })
            .collect::<Result<Vec<Order>, RepoError>>()?;
        Ok(Page::new(orders, total, page))
    }

    #[tracing::instrument(name = "pg_orders.save", skip_all, fields(order_id = %change.order.id))]
    async fn save(&self, change: &OrderChange) -> Result<(), RepoError> {
        match self.changes.write(Saving(change.clone())).await {
            Ok(()) => Ok(()),
            // The update missed (and what was sent with it rolled back): moved or gone?
            Err(WriteError::Db(diesel::result::Error::RollbackTransaction)) => {
                let mut conn = connect(&self.pool).await?;
                let stale = store::exists(&mut conn, change.order.id).await.map_err(from_diesel)?;
                Err(if stale { RepoError::Stale } else { RepoError::NotFound })
            }
            Err(other) => Err(other.resolve(&CONSTRAINTS)),
        }
    }

    #[tracing::instrument(name = "pg_orders.delete", skip_all, fields(order_id = %deletion.order_id))]
    async fn delete(&self, deletion: &OrderDeletion, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(orders::table)
                .filter(orders::id.eq(deletion.order_id))
                .filter(orders::version.eq(deletion.expected_version))
                .filter(orders::status.eq(deletion.expected_status.as_str()))
                .filter(orders::deleted_at.is_null())
                .set((orders::deleted_at.eq(now), orders::updated_at.eq(now), orders::version.eq(orders::version + 1))),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if updated == 1 {
            return Ok(());
        }
        let stale = store::exists(&mut conn, deletion.order_id).await.map_err(from_diesel)?;
        Err(if stale { RepoError::Stale } else { RepoError::NotFound })
    }
}
