//! The order side of the order flow: folds the warehouse's replies into the order's
//! `reservation_status`. What a reply does to an order is the aggregate's decision
//! (`Order::fold_reply`, the one `order_domain::application::OrderService::fold_reply` asks too);
//! this consumer parses the event and runs that decision inside its batched transaction.
//!
//! A reply's transaction: the inbox mark, the order row locked `FOR UPDATE` (so the compare-and-set
//! cannot miss), the change. Replies that arrive together go in one transaction
//! ([`postgres_toolkit::group_commit`]): one claim, one locked read of their orders, a write per changed order,
//! one commit. A reply for a deleted order, or one the domain ignores (duplicate, stale, late), is
//! marked handled and changes nothing.

use std::collections::BTreeSet;

use async_trait::async_trait;
use event_contracts::warehouse::{WarehouseReply, REPLIES};
use order_domain::{OrderChange, RepoError};
use shared_kernel::application::{Clock, SystemClock};
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use uuid::Uuid;

use super::errors::{tx_error, TxError};
use super::store;
use postgres_toolkit::events::{handing_over, Delivery};
use postgres_toolkit::group_commit::{Batched, GroupCommit};
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

pub const HANDLER_NAME: &str = "orders.warehouse_replies";

pub struct WarehouseRepliesHandler {
    replies: GroupCommit<Replies>,
}

impl WarehouseRepliesHandler {
    /// Starts the replies' batching task; call inside the runtime.
    pub fn new(pool: DbPool) -> Self {
        Self { replies: GroupCommit::start(Replies { pool }) }
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

    /// Every reply goes through the replies' group commit.
    fn done_together(&self, event_name: &str) -> bool {
        self.handles(event_name)
    }

    #[tracing::instrument(skip_all, fields(event_id = %event.id, event = %event.name))]
    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let Some(reply) = WarehouseReply::from_event(event) else {
            return Ok(());
        };
        let reply = reply.map_err(|e| HandlerError::new(e.to_string()))?;
        self.replies
            .submit(ReplyRequest { event_id: event.id, reply })
            .await
            .map_err(|e| HandlerError::new(e.to_string()))
    }
}

/// One reply to fold in, and the event it came in.
pub struct ReplyRequest {
    event_id: Uuid,
    reply: WarehouseReply,
}

/// Replies, one or many per transaction.
struct Replies {
    pool: DbPool,
}

#[async_trait]
impl Batched for Replies {
    type Request = ReplyRequest;
    type Outcome = ();
    type Error = RepoError;
    type Key = Uuid;

    fn key(request: &ReplyRequest) -> Uuid {
        request.reply.order_id()
    }

    #[tracing::instrument(name = "order_replies.fold_many", skip_all, fields(replies = requests.len()))]
    async fn many(&self, requests: &[&ReplyRequest]) -> Result<Vec<()>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        handing_over(
            &self.pool,
            postgres_toolkit::pipeline::transaction(&mut conn, async |conn| -> Result<Vec<()>, TxError> {
                let events: Vec<Uuid> = requests.iter().map(|r| r.event_id).collect();
                let orders: Vec<Uuid> =
                    requests.iter().map(|r| r.reply.order_id()).collect::<BTreeSet<_>>().into_iter().collect();
                // The claims and the orders' locked read go out together (pipelined); a second delivery
                // reads (and locks until its commit) for nothing, and does nothing.
                let (first, mut loaded) = futures_util::future::try_join(
                    Delivery::claim_all(conn, HANDLER_NAME, &events),
                    store::load_many(conn, &orders, true),
                )
                .await?;
                let now = SystemClock.now();
                let mut changes = Vec::new();
                for request in requests {
                    let Some((row, lines)) = loaded.remove(&request.reply.order_id()) else { continue };
                    if !first.contains(&request.event_id) {
                        continue;
                    }
                    let order = row.into_order(lines).map_err(TxError::Refused)?;
                    changes.extend(order.fold_reply(&request.reply, now));
                }
                let changes: Vec<&OrderChange> = changes.iter().collect();
                if !store::write_changes(conn, &changes).await? {
                    // Impossible while the rows are locked; fail so the bus retries.
                    return Err(TxError::Refused(RepoError::Stale));
                }
                Ok(vec![(); requests.len()])
            }),
        )
        .await
        .map_err(tx_error)
    }

    fn lost() -> RepoError {
        RepoError::Unknown("the reply's batch was lost".to_owned())
    }
}
