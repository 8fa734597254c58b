//! `OrderStockRepository` on PostgreSQL: the warehouse side of the order flow.
//!
//! Every method is one transaction that (1) claims the event's delivery in the inbox when the
//! repository is bound to one, (2) locks the order's row in `order_stock_holds` — the per-order
//! serialisation point, so a reservation and a release of one order never interleave, whatever order
//! the bus delivers them in — and lets the domain's hold state machine decide what the event does,
//! (3) locks the inventory rows it touches `FOR UPDATE` in id order, (4) writes each quantity change
//! with its movement and (5) writes the reply event to the outbox. A release that finds no
//! reservation still marks the order `released`, so a reservation arriving later reserves nothing.

use std::collections::{BTreeSet, HashMap};

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use uuid::Uuid;
use warehouse_domain::events::{self, INSUFFICIENT_STOCK_REASON};
use warehouse_domain::{
    held_for_order, order_hold, plan_reservation, totals_by_inventory, HoldDecision, HoldEvent, HoldStatus,
    InventoryChange, InventoryQuantity, OrderStockRepository, ReferenceType, RepoError, ReservationLine,
    ReservationOutcome, SettleOutcome, Stamp, StockLevel,
};

use super::errors::{corrupt, tx_error, TxError};
use super::ledger::{apply_locked_changes, lock_by_ids};
use super::rows::{InventoryRow, MovementRow};
use super::schema::{inventory, locations, order_stock_holds, stock_movements};
use crate::events::{record_event, Delivery};
use crate::pipeline::{transaction, write_with_followers};
use crate::prepared::Prepared;
use crate::storage::connect;
use crate::DbPool;
use futures_util::future::{try_join, try_join3};
use futures_util::TryFutureExt;
use shared_kernel::StorageError;

#[derive(Clone)]
pub struct PgOrderStockRepository {
    pool: DbPool,
    /// The event delivery this instance works for; claimed first in every transaction.
    delivery: Option<Delivery>,
}

impl PgOrderStockRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool, delivery: None }
    }

    /// The same repository, doing its work at most once for `delivery`.
    pub fn for_delivery(&self, delivery: Delivery) -> Self {
        Self { pool: self.pool.clone(), delivery: Some(delivery) }
    }
}

/// Claims the delivery, if any: `false` when an earlier delivery did the work.
async fn first_delivery(conn: &AsyncPgConnection, delivery: Option<Delivery>) -> QueryResult<bool> {
    match delivery {
        Some(delivery) => delivery.claim(conn).await,
        None => Ok(true),
    }
}

/// Locks the order's hold row, creating a `pending` placeholder when absent, and returns the status
/// it had (`None`: no decision stored yet). (The query DSL, not SQL text, so the statement is
/// prepared once per connection: one round trip.)
async fn claim_hold(mut conn: &AsyncPgConnection, order_id: Uuid) -> Result<Option<HoldStatus>, TxError> {
    let status: String = Prepared(
        diesel::insert_into(order_stock_holds::table)
            .values((order_stock_holds::order_id.eq(order_id), order_stock_holds::status.eq("pending")))
            .on_conflict(order_stock_holds::order_id)
            .do_update()
            // A no-op write: it takes the row lock an existing row needs.
            .set(order_stock_holds::updated_at.eq(order_stock_holds::updated_at))
            .returning(order_stock_holds::status),
    )
    .get_result(&mut conn)
    .await?;
    match status.as_str() {
        "pending" => Ok(None),
        // The CHECK allows nothing else; a value it missed must not pass for "no decision yet".
        other => HoldStatus::parse(other).map(Some).ok_or(TxError::Refused(corrupt("hold status", other))),
    }
}

async fn set_hold(mut conn: &AsyncPgConnection, order_id: Uuid, status: HoldStatus) -> QueryResult<usize> {
    let status = status.as_str();
    Prepared(
        diesel::update(order_stock_holds::table.find(order_id))
            .set((order_stock_holds::status.eq(status), order_stock_holds::updated_at.eq(diesel::dsl::now))),
    )
    .execute(&mut conn)
    .await
}

/// The candidate records for `products`: live, at live active locations, locked in id order (the
/// locations by a subquery, so only inventory rows are locked).
async fn lock_candidates(mut conn: &AsyncPgConnection, products: &[Uuid]) -> QueryResult<Vec<InventoryRow>> {
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

#[derive(Clone, Copy)]
enum Settle {
    Release,
    Commit,
}

/// Releases or commits what the order holds, per record; returns what was settled.
async fn settle(
    mut conn: &AsyncPgConnection,
    order_id: Uuid,
    how: Settle,
    stamp: Stamp,
) -> Result<Vec<InventoryQuantity>, TxError> {
    let rows: Vec<MovementRow> = stock_movements::table
        .filter(stock_movements::reference_id.eq(order_id))
        .filter(stock_movements::reference_type.eq(ReferenceType::Order.as_str()))
        .select(MovementRow::as_select())
        .load(&mut conn)
        .await?;
    let movements = rows.into_iter().map(MovementRow::into_movement).collect::<Result<Vec<_>, _>>()?;
    let held = held_for_order(&movements, order_id);
    let ids: Vec<Uuid> = held.iter().map(|h| h.inventory_id).collect();
    let locked: HashMap<Uuid, InventoryRow> = lock_by_ids(conn, &ids).await?.into_iter().map(|r| (r.id, r)).collect();
    let mut settled = Vec::with_capacity(held.len());
    let mut changes = Vec::with_capacity(held.len());
    for hold in held {
        let Some(row) = locked.get(&hold.inventory_id) else { continue };
        let record = row.clone().into_inventory();
        // Never more than the record still holds (someone may have released by hand).
        let quantity = hold.quantity.min(record.quantity_reserved);
        if quantity <= 0 {
            continue;
        }
        let change = match how {
            Settle::Release => record.release(quantity, order_id, stamp),
            Settle::Commit => record.commit(quantity, order_id, stamp),
        }
        .map_err(|e| TxError::Refused(RepoError::Refused(e)))?;
        changes.push(change);
        settled.push(InventoryQuantity { inventory_id: hold.inventory_id, quantity });
    }
    write(conn, &changes).await?;
    Ok(settled)
}

#[async_trait]
impl OrderStockRepository for PgOrderStockRepository {
    async fn reserve_for_order(
        &self,
        order_id: Uuid,
        lines: &[ReservationLine],
        stamp: Stamp,
    ) -> Result<ReservationOutcome, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let delivery = self.delivery;
        transaction(&mut conn, async |conn| -> Result<ReservationOutcome, TxError> {
            // The inbox claim, the hold and the candidate records are asked for at once (pipelined,
            // one round trip, locked in that order as before); when the claim or the hold says the
            // work is done, the locks taken for nothing go at commit.
            let products: Vec<Uuid> = lines.iter().map(|l| l.product_id).collect::<BTreeSet<_>>().into_iter().collect();
            let (first, hold, rows) = try_join3(
                first_delivery(conn, delivery).err_into(),
                claim_hold(conn, order_id),
                lock_candidates(conn, &products).err_into(),
            )
            .await?;
            if !first {
                return Ok(ReservationOutcome::AlreadyHandled);
            }
            match order_hold::decide(hold, HoldEvent::Reserve) {
                HoldDecision::PlanReservation => {}
                HoldDecision::SkipReleased => return Ok(ReservationOutcome::AlreadyReleased),
                HoldDecision::SkipHandled | HoldDecision::Settle { .. } => {
                    return Ok(ReservationOutcome::AlreadyHandled)
                }
            }
            let levels: Vec<StockLevel> = rows
                .iter()
                .map(|r| StockLevel {
                    inventory_id: r.id,
                    product_id: r.product_id,
                    location_id: r.location_id,
                    available: r.quantities().available(),
                })
                .collect();
            match plan_reservation(lines, &levels) {
                Ok(allocations) => {
                    let by_id: HashMap<Uuid, &InventoryRow> = rows.iter().map(|r| (r.id, r)).collect();
                    let mut changes = Vec::new();
                    for total in totals_by_inventory(&allocations) {
                        let Some(row) = by_id.get(&total.inventory_id) else {
                            return Err(TxError::Refused(RepoError::Storage(StorageError::Stale)));
                        };
                        let change = (*row)
                            .clone()
                            .into_inventory()
                            .reserve(total.quantity, order_id, stamp)
                            .map_err(|e| TxError::Refused(RepoError::Refused(e)))?;
                        changes.push(change);
                    }
                    // The quantities, the hold's decision and the reply go out at once (pipelined).
                    let reply = [events::stock_reserved(order_id, &allocations, stamp.at)];
                    let followers = try_join(
                        set_hold(conn, order_id, order_hold::after_planning(true)),
                        record_event(conn, &reply),
                    );
                    let written = apply_locked_changes(conn, &changes).map_ok(|written| written.then_some(()));
                    write_with_followers(written, followers)
                        .await?
                        .ok_or(TxError::Refused(RepoError::Storage(StorageError::Stale)))?;
                    Ok(ReservationOutcome::Reserved(allocations))
                }
                Err(short_lines) => {
                    let reply =
                        [events::reservation_failed(order_id, INSUFFICIENT_STOCK_REASON, &short_lines, stamp.at)];
                    try_join(set_hold(conn, order_id, order_hold::after_planning(false)), record_event(conn, &reply))
                        .await?;
                    Ok(ReservationOutcome::Failed(short_lines))
                }
            }
        })
        .await
        .map_err(tx_error)
    }

    async fn release_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        self.settle_for_order(order_id, HoldEvent::Release, stamp).await
    }

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
        transaction(&mut conn, async |conn| -> Result<SettleOutcome, TxError> {
            if !first_delivery(conn, delivery).await? {
                return Ok(SettleOutcome::AlreadyHandled);
            }
            let HoldDecision::Settle { status } = order_hold::decide(claim_hold(conn, order_id).await?, event) else {
                return Ok(SettleOutcome::AlreadyHandled);
            };
            set_hold(conn, order_id, status).await?;
            let how = if event == HoldEvent::Commit { Settle::Commit } else { Settle::Release };
            let settled = settle(conn, order_id, how, stamp).await?;
            let reply = match how {
                Settle::Commit => events::stock_committed(order_id, &settled, stamp.at),
                Settle::Release => events::stock_released(order_id, &settled, stamp.at),
            };
            record_event(conn, &[reply]).await?;
            Ok(SettleOutcome::Settled(settled))
        })
        .await
        .map_err(tx_error)
    }
}
