//! The order side of the order flow: folds the warehouse's replies into the order's
//! `reservation_status` (the rules are the order domain's `mark_*` methods).
//!
//! One transaction per reply: the inbox mark, the order row locked `FOR UPDATE` (so the
//! compare-and-set cannot miss), the change. A reply for a deleted order, or one the domain ignores
//! (duplicate, stale, late), is marked handled and changes nothing.

use async_trait::async_trait;
use event_contracts::warehouse::{ReservationFailed, WarehouseReply, REPLIES};
use order_domain::OrderChange;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

use super::errors::TxError;
use super::store;
use crate::events::Delivery;
use crate::DbPool;

pub const HANDLER_NAME: &str = "orders.warehouse_replies";

pub struct WarehouseRepliesHandler {
    pool: DbPool,
}

impl WarehouseRepliesHandler {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

/// The failure reason kept on the order: the warehouse's reason and each short line.
fn failure_reason(data: &ReservationFailed) -> String {
    let reason = data.reason.as_str();
    let short: Vec<String> = data
        .short_lines
        .iter()
        .map(|s| format!("product {} requested {}, available {}", s.product_id, s.requested, s.available))
        .collect();
    if short.is_empty() {
        reason.to_owned()
    } else {
        format!("{reason}: {}", short.join("; "))
    }
}

#[async_trait]
impl EventHandler for WarehouseRepliesHandler {
    fn name(&self) -> &'static str {
        HANDLER_NAME
    }

    fn handles(&self, event_name: &str) -> bool {
        REPLIES.contains(&event_name)
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let Some(reply) = WarehouseReply::from_event(event) else {
            return Ok(());
        };
        let reply = reply.map_err(|e| HandlerError::new(e.to_string()))?;
        let mut conn = self.pool.get().await.map_err(|e| HandlerError::new(e.to_string()))?;
        let event_id = event.id;
        crate::pipeline::transaction(&mut conn, async |conn| -> Result<(), TxError> {
            // The claim and the order's locked read go out together (pipelined); a second delivery
            // reads (and locks until its commit) for nothing, and does nothing.
            let (first, loaded) = futures_util::future::try_join(
                Delivery::new(event_id, HANDLER_NAME).claim(conn),
                store::load(conn, reply.order_id(), true),
            )
            .await?;
            let (true, Some((row, lines))) = (first, loaded) else {
                return Ok(());
            };
            let order = row.into_order(lines).map_err(TxError::Refused)?;
            let now = OffsetDateTime::now_utc();
            let change: Option<OrderChange> = match &reply {
                WarehouseReply::Reserved(_) => order.mark_reserved(now),
                WarehouseReply::Failed(failed) => order.mark_reservation_failed(&failure_reason(failed), now),
                WarehouseReply::Released(_) => order.mark_released(now),
                WarehouseReply::Committed(_) => order.mark_committed(now),
            };
            if let Some(change) = change {
                if !store::write_change(conn, &change).await? {
                    // Impossible while the row is locked; fail so the bus retries.
                    return Err(TxError::Refused(order_domain::RepoError::Stale));
                }
            }
            Ok(())
        })
        .await
        .map_err(|e| HandlerError::new(super::errors::tx_error(e).to_string()))
    }
}
