//! `OrderStockRepository` on PostgreSQL: the warehouse side of the order flow.
//!
//! Every method is one transaction that (1) claims the event's delivery in the inbox when the
//! repository is bound to one, (2) locks the order's row in `order_stock_holds` — the per-order
//! serialisation point, so a reservation and a release of one order never interleave, whatever order
//! the bus delivers them in — and lets the domain's hold state machine decide what the event does,
//! (3) locks the inventory rows it touches `FOR UPDATE` in id order, (4) writes each quantity change
//! with its movement and (5) writes the reply event to the outbox. What each event means is the
//! domain's (`order_hold::decide`, `answer_confirmation`, `settle_held`); this file reads, locks
//! and writes what they say. A release that finds no reservation still marks the order `released`,
//! so a reservation arriving later reserves nothing.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;
use warehouse_domain::{
    held_for_order, order_hold, settle_held, HoldDecision, HoldEvent, HoldStatus, Inventory, InventoryChange,
    OrderStockRepository, ReferenceType, RepoError, ReservationLine, ReservationOutcome, SettleOutcome, Settlement,
    Stamp,
};

use super::errors::{corrupt, tx_error, TxError};
use super::ledger::{apply_locked_changes, lock_by_ids};
use super::reservation_batch::{reserve_together, ReservationRequest, Reservations};
use super::rows::{InventoryRow, MovementRow};
use super::schema::{inventory, locations, order_stock_holds, stock_movements};
use postgres_toolkit::events::{handing_over, record_event, Delivery};
use postgres_toolkit::group_commit::GroupCommit;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;
use shared_kernel::StorageError;

#[derive(Clone)]
pub struct PgOrderStockRepository {
    pool: DbPool,
    /// The event delivery this instance works for; claimed first in every transaction.
    delivery: Option<Delivery>,
    /// Reservations that arrive together share one transaction (`super::reservation_batch`).
    reservations: Option<GroupCommit<Reservations>>,
}

impl PgOrderStockRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool, delivery: None, reservations: None }
    }

    /// The same repository, reserving through a group commit whose inbox is `handler`'s: start it
    /// inside the runtime.
    pub fn batched(&self, handler: &'static str) -> Self {
        let reservations = GroupCommit::start(Reservations { pool: self.pool.clone(), handler });
        Self { reservations: Some(reservations), ..self.clone() }
    }

    /// The same repository, doing its work at most once for `delivery`.
    pub fn for_delivery(&self, delivery: Delivery) -> Self {
        Self { delivery: Some(delivery), ..self.clone() }
    }
}

/// Claims the delivery, if any: `false` when an earlier delivery did the work.
async fn first_delivery(conn: &AsyncPgConnection, delivery: Option<Delivery>) -> QueryResult<bool> {
    match delivery {
        Some(delivery) => delivery.claim(conn).await,
        None => Ok(true),
    }
}

/// Locks the holds of orders, creating `pending` placeholders where absent, in the order of the ids
/// given; one text for any number of them. The no-op update takes the row lock an existing row needs.
const CLAIM_HOLDS: &str = "INSERT INTO order_stock_holds (order_id, status) \
     SELECT v.order_id, 'pending' FROM unnest($1::uuid[]) WITH ORDINALITY AS v(order_id, n) ORDER BY v.n \
     ON CONFLICT (order_id) DO UPDATE SET updated_at = order_stock_holds.updated_at \
     RETURNING order_id, status";

#[derive(QueryableByName)]
#[diesel(table_name = order_stock_holds)]
struct ClaimedHold {
    order_id: Uuid,
    status: String,
}

/// Locks the holds of several orders in one statement (`CLAIM_HOLDS`), kept prepared, and returns
/// each one's stored status (`None`: no decision yet). Pass the ids sorted: rows are locked in that
/// order, so two batches cannot deadlock.
pub(super) async fn claim_holds(
    mut conn: &AsyncPgConnection,
    sorted_orders: &[Uuid],
) -> Result<HashMap<Uuid, Option<HoldStatus>>, TxError> {
    let claimed: Vec<ClaimedHold> = Prepared(
        diesel::sql_query(CLAIM_HOLDS).bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(sorted_orders),
    )
    .get_results(&mut conn)
    .await?;
    claimed.into_iter().map(|c| Ok((c.order_id, stored_hold(&c.status)?))).collect()
}

/// A stored hold status: `None` for the `pending` placeholder (no decision stored yet).
fn stored_hold(status: &str) -> Result<Option<HoldStatus>, TxError> {
    match status {
        "pending" => Ok(None),
        // The CHECK allows nothing else; a value it missed must not pass for "no decision yet".
        other => HoldStatus::parse(other).map(Some).ok_or(TxError::Refused(corrupt("hold status", other))),
    }
}

/// Stores the hold state machine's decision for `orders` (kept prepared: the ids are one array
/// parameter); none, no statement.
pub(super) async fn set_holds(mut conn: &AsyncPgConnection, orders: &[Uuid], status: HoldStatus) -> QueryResult<usize> {
    if orders.is_empty() {
        return Ok(0);
    }
    Prepared(
        diesel::update(order_stock_holds::table.filter(order_stock_holds::order_id.eq_any(orders)))
            .set((order_stock_holds::status.eq(status.as_str()), order_stock_holds::updated_at.eq(diesel::dsl::now))),
    )
    .execute(&mut conn)
    .await
}

/// The candidate records for `products`: live, at live active locations, locked in id order (the
/// locations by a subquery, so only inventory rows are locked).
pub(super) async fn lock_candidates(mut conn: &AsyncPgConnection, products: &[Uuid]) -> QueryResult<Vec<InventoryRow>> {
    let open_locations =
        locations::table.filter(locations::deleted_at.is_null().and(locations::is_active)).select(locations::id);
    inventory::table
        .filter(inventory::product_id.eq_any(products))
        .filter(inventory::deleted_at.is_null())
        .filter(inventory::location_id.eq_any(open_locations))
        .order(inventory::id.asc())
        .for_update()
        .select(InventoryRow::as_select())
        .load(&mut conn)
        .await
}

/// Writes the changes of locked records, pipelined; a missed compare-and-set cannot happen under the
/// row locks, so one aborts the transaction.
async fn write(conn: &AsyncPgConnection, changes: &[InventoryChange]) -> Result<(), TxError> {
    if apply_locked_changes(conn, changes).await? {
        Ok(())
    } else {
        Err(TxError::Refused(RepoError::Storage(StorageError::Stale)))
    }
}

/// Settles what the order holds as the domain decides ([`settle_held`]) on the records it holds
/// stock on, locked; writes the changes.
async fn settle(
    mut conn: &AsyncPgConnection,
    order_id: Uuid,
    event: HoldEvent,
    stamp: Stamp,
) -> Result<Settlement, TxError> {
    let rows: Vec<MovementRow> = stock_movements::table
        .filter(stock_movements::reference_id.eq(order_id))
        .filter(stock_movements::reference_type.eq(ReferenceType::Order.as_str()))
        .select(MovementRow::as_select())
        .load(&mut conn)
        .await?;
    let movements =
        rows.into_iter().map(MovementRow::into_movement).collect::<Result<Vec<_>, _>>().map_err(TxError::Refused)?;
    let held = held_for_order(&movements, order_id);
    let ids: Vec<Uuid> = held.iter().map(|h| h.inventory_id).collect();
    let locked: Vec<Inventory> = lock_by_ids(conn, &ids).await?.into_iter().map(InventoryRow::into_inventory).collect();
    let settlement =
        settle_held(order_id, event, &held, &locked, stamp).map_err(|e| TxError::Refused(RepoError::Refused(e)))?;
    write(conn, &settlement.changes).await?;
    Ok(settlement)
}

#[async_trait]
impl OrderStockRepository for PgOrderStockRepository {
    #[tracing::instrument(level = "debug", skip_all, fields(order_id = %order_id))]
    async fn reserve_for_order(
        &self,
        order_id: Uuid,
        lines: &[ReservationLine],
        stamp: Stamp,
    ) -> Result<ReservationOutcome, RepoError> {
        let request =
            ReservationRequest { event_id: self.delivery.map(|d| d.event_id), order_id, lines: lines.to_vec(), stamp };
        if let Some(reservations) = &self.reservations {
            return reservations.submit(request).await;
        }
        // One order is a batch of one: the same transaction, the same decisions.
        let handler = self.delivery.map(|d| d.handler);
        let outcome = reserve_together(&self.pool, handler, &[&request]).await?.pop();
        outcome.ok_or(RepoError::Storage(StorageError::Unknown("a reservation without an outcome".to_owned())))
    }

    #[tracing::instrument(level = "debug", skip_all, fields(order_id = %order_id))]
    async fn release_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        self.settle_for_order(order_id, HoldEvent::Release, stamp).await
    }

    #[tracing::instrument(level = "debug", skip_all, fields(order_id = %order_id))]
    async fn commit_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        self.settle_for_order(order_id, HoldEvent::Commit, stamp).await
    }
}

impl PgOrderStockRepository {
    /// Release (`order.cancelled`) or commit (`order.fulfilled`) what the order holds, as the hold
    /// state machine decides, and write the reply.
    async fn settle_for_order(
        &self,
        order_id: Uuid,
        event: HoldEvent,
        stamp: Stamp,
    ) -> Result<SettleOutcome, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let delivery = self.delivery;
        handing_over(
            &self.pool,
            transaction(&mut conn, async |conn| -> Result<SettleOutcome, TxError> {
                if !first_delivery(conn, delivery).await? {
                    return Ok(SettleOutcome::AlreadyHandled);
                }
                let hold = claim_holds(conn, &[order_id]).await?.remove(&order_id).flatten();
                let HoldDecision::Settle { status } = order_hold::decide(hold, event) else {
                    return Ok(SettleOutcome::AlreadyHandled);
                };
                set_holds(conn, &[order_id], status).await?;
                let settlement = settle(conn, order_id, event, stamp).await?;
                record_event(conn, &[settlement.reply]).await?;
                Ok(SettleOutcome::Settled(settlement.settled))
            }),
        )
        .await
        .map_err(tx_error)
    }
}
