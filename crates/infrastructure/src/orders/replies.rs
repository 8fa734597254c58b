//! The order side of the order flow: folds the warehouse's replies into the order's
//! `reservation_status` (the rules are the order domain's `mark_*` methods).
//!
//! One transaction per reply: the inbox mark, the order row locked `FOR UPDATE` (so the
//! compare-and-set cannot miss), the change. A reply for a deleted order, or one the domain ignores
//! (duplicate, stale, late), is marked handled and changes nothing.

use async_trait::async_trait;
use diesel_async::AsyncConnection;
use order_domain::OrderChange;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use warehouse_domain::events::{ReplyData, RESERVATION_FAILED, STOCK_COMMITTED, STOCK_RELEASED, STOCK_RESERVED};

use super::errors::TxError;
use super::store;
use crate::events::mark_handled;
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
fn failure_reason(data: &ReplyData) -> String {
    let reason = data.reason.as_deref().unwrap_or("reservation failed");
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
        matches!(event_name, STOCK_RESERVED | RESERVATION_FAILED | STOCK_RELEASED | STOCK_COMMITTED)
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let data: ReplyData = serde_json::from_value(event.data.clone())
            .map_err(|e| HandlerError::new(format!("malformed {} data: {e}", event.name)))?;
        let mut conn = self.pool.get().await.map_err(|e| HandlerError::new(e.to_string()))?;
        let (event_id, name) = (event.id, event.name.as_str());
        conn.transaction::<(), TxError, _>(async |conn| {
            if !mark_handled(conn, event_id, HANDLER_NAME).await? {
                return Ok(());
            }
            let Some((row, lines)) = store::load(conn, data.order_id, true).await? else {
                return Ok(());
            };
            let order = row.into_order(lines).map_err(TxError::Repo)?;
            let now = OffsetDateTime::now_utc();
            let change: Option<OrderChange> = match name {
                STOCK_RESERVED => order.mark_reserved(now),
                RESERVATION_FAILED => order.mark_reservation_failed(&failure_reason(&data), now),
                STOCK_RELEASED => order.mark_released(now),
                STOCK_COMMITTED => order.mark_committed(now),
                _ => None,
            };
            if let Some(change) = change {
                if !store::write_change(conn, &change).await? {
                    // Impossible while the row is locked; fail so the bus retries.
                    return Err(TxError::Repo(order_domain::RepoError::StaleState));
                }
            }
            Ok(())
        })
        .await
        .map_err(|e| HandlerError::new(order_domain::RepoError::from(e).to_string()))
    }
}
