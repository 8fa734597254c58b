//! Reservations for confirmed orders: one transaction for one order or for many
//! ([`postgres_toolkit::group_commit`]).
//!
//! Under a storm of confirmations the bus hands the warehouse many `order.confirmed` events at once,
//! and each was a transaction of its own: the inbox claim, the hold, the candidate records locked,
//! their updates and movements, the hold's decision, the reply, and a commit with its WAL flush.
//! `reserve_together` does what those transactions would have done, in arrival order, order after
//! order against the same locked records (`warehouse_domain::reserve_from`), with one claim, one
//! lock, one write per record and one commit for the lot. One order
//! (`PgOrderStockRepository::reserve_for_order`) is a batch of one. What each confirmation means
//! is the domain's (`warehouse_domain::answer_confirmation`); this file only gathers what it says
//! to write.

use std::collections::{BTreeSet, HashMap, HashSet};

use async_trait::async_trait;
use futures_util::future::try_join3;
use futures_util::TryFutureExt;
use shared_kernel::{EventEnvelope, StorageError};
use uuid::Uuid;
use warehouse_domain::{
    answer_confirmation, HoldStatus, Inventory, InventoryChange, RepoError, ReservationLine, ReservationOutcome, Stamp,
};

use super::errors::{tx_error, TxError};
use super::ledger::apply_locked_changes;
use super::order_stock::{claim_holds, lock_candidates, set_holds};
use super::rows::InventoryRow;
use postgres_toolkit::events::{handing_over, record_event, Delivery};
use postgres_toolkit::group_commit::Batched;
use postgres_toolkit::pipeline::{transaction, write_with_followers};
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

/// One confirmed order to reserve for, and the event it comes from (`None`: not from an event, no
/// inbox claim).
#[derive(Debug, Clone)]
pub struct ReservationRequest {
    pub event_id: Option<Uuid>,
    pub order_id: Uuid,
    pub lines: Vec<ReservationLine>,
    pub stamp: Stamp,
}

/// Reservations of one handler (its inbox name), one order or many per transaction.
pub struct Reservations {
    pub pool: DbPool,
    pub handler: &'static str,
}

#[async_trait]
impl Batched for Reservations {
    type Request = ReservationRequest;
    type Outcome = ReservationOutcome;
    type Error = RepoError;
    type Key = Uuid;

    fn key(request: &ReservationRequest) -> Uuid {
        request.order_id
    }

    async fn many(&self, requests: &[&ReservationRequest]) -> Result<Vec<ReservationOutcome>, RepoError> {
        reserve_together(&self.pool, Some(self.handler), requests).await
    }

    fn lost() -> RepoError {
        RepoError::Storage(StorageError::Unknown("the reservation's batch was lost".to_owned()))
    }
}

/// One transaction reserving for every request, in their order: an outcome per request. With `handler`, each request's event is claimed in its inbox first, and a
/// request whose event was handled before changes nothing.
pub(super) async fn reserve_together(
    pool: &DbPool,
    handler: Option<&'static str>,
    requests: &[&ReservationRequest],
) -> Result<Vec<ReservationOutcome>, RepoError> {
    let mut conn = connect(pool).await?;
    handing_over(
        pool,
        transaction(&mut conn, async |conn| -> Result<Vec<ReservationOutcome>, TxError> {
            let orders: Vec<Uuid> = requests.iter().map(|r| r.order_id).collect::<BTreeSet<_>>().into_iter().collect();
            let products: Vec<Uuid> = requests
                .iter()
                .flat_map(|r| r.lines.iter().map(|l| l.product_id))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let events: Vec<Uuid> = requests.iter().filter_map(|r| r.event_id).collect();
            let claim = async {
                match handler {
                    Some(handler) if !events.is_empty() => Delivery::claim_all(conn, handler, &events).await,
                    _ => Ok(HashSet::new()),
                }
            };
            // The claims, the holds and the candidate records are asked for at once (pipelined, one round
            // trip) and locked in that order (holds by order id, records by id, so two transactions cannot
            // deadlock); when the claim or the hold says an order's work is done, its locks go at commit.
            let (mut claimed, mut holds, rows) =
                try_join3(claim.err_into(), claim_holds(conn, &orders), lock_candidates(conn, &products).err_into())
                    .await?;
            let mut records: Vec<Inventory> = rows.into_iter().map(InventoryRow::into_inventory).collect();
            let mut batch = Batch::default();
            for request in requests {
                let first = match (handler, request.event_id) {
                    // Taken out once: a second request for the same event finds it handled.
                    (Some(_), Some(event)) => claimed.remove(&event),
                    _ => true,
                };
                let outcome = if first {
                    batch.answer(request, &mut holds, &mut records)?
                } else {
                    ReservationOutcome::AlreadyHandled
                };
                batch.outcomes.push(outcome);
            }
            // The quantities, the holds' decisions and the replies go out at once (pipelined).
            let followers = try_join3(
                set_holds(conn, &batch.reserved, HoldStatus::Reserved),
                set_holds(conn, &batch.failed, HoldStatus::Failed),
                record_event(conn, &batch.replies),
            );
            let written = apply_locked_changes(conn, &batch.changes).map_ok(|written| written.then_some(()));
            write_with_followers(written, followers)
                .await?
                .ok_or(TxError::Refused(RepoError::Storage(StorageError::Stale)))?;
            Ok(batch.outcomes)
        }),
    )
    .await
    .map_err(tx_error)
}

/// What a batch writes, gathered order by order.
#[derive(Default)]
struct Batch {
    outcomes: Vec<ReservationOutcome>,
    changes: Vec<InventoryChange>,
    replies: Vec<EventEnvelope>,
    reserved: Vec<Uuid>,
    failed: Vec<Uuid>,
}

impl Batch {
    /// The domain's answer for one order against `records` (left as the reservation leaves them, for
    /// the next order), gathered for writing; `holds` keeps the decision, so a second request for
    /// the order in this batch (a caller that did not keep to one per order) finds it made, as a
    /// later transaction would.
    fn answer(
        &mut self,
        request: &ReservationRequest,
        holds: &mut HashMap<Uuid, Option<HoldStatus>>,
        records: &mut [Inventory],
    ) -> Result<ReservationOutcome, TxError> {
        let hold = holds.get(&request.order_id).copied().flatten();
        let answer = answer_confirmation(hold, request.order_id, &request.lines, records, request.stamp)
            .map_err(|e| TxError::Refused(RepoError::Refused(e)))?;
        if let Some(status) = answer.hold {
            holds.insert(request.order_id, Some(status));
        }
        match answer.hold {
            Some(HoldStatus::Reserved) => self.reserved.push(request.order_id),
            Some(_) => self.failed.push(request.order_id),
            None => {}
        }
        self.changes.extend(answer.changes);
        self.replies.extend(answer.reply);
        Ok(answer.outcome)
    }
}
