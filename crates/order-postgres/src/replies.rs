//! The order side of the order flow: the consumer of the warehouse's replies, and the PostgreSQL
//! [`ReplyInbox`] it settles them through.
//!
//! The consumer parses the event and calls the use case
//! ([`order_domain::application::ReplyService::fold_delivered`]), which hands the aggregate's decision
//! (`Order::fold_reply`) to the inbox. A reply's transaction: the inbox mark, the order row locked
//! `FOR UPDATE` (so the compare-and-set cannot miss), the decision, the change. Replies that arrive
//! together go in one transaction ([`postgres_toolkit::group_commit`]): one claim, one locked read of
//! their orders, a write per changed order, one commit. A reply for a deleted order, or one the
//! domain ignores (duplicate, stale, late), is marked handled and changes nothing.

use std::collections::BTreeSet;

use async_trait::async_trait;
use std::sync::Arc;

use event_contracts::warehouse::{WarehouseReply, REPLIES};
use order_domain::application::ReplyService;
use order_domain::{FoldReply, Order, OrderChange, ReplyInbox, RepoError};
use shared_kernel::application::SystemClock;
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
    replies: ReplyService,
}

impl WarehouseRepliesHandler {
    /// Starts the replies' batching task; call inside the runtime.
    pub fn new(pool: DbPool) -> Self {
        Self { replies: ReplyService::new(Arc::new(PgReplyInbox::new(pool)), Arc::new(SystemClock)) }
    }
}

/// The PostgreSQL [`ReplyInbox`]: this consumer's inbox (`HANDLER_NAME`) and the orders, with the
/// replies delivered together settled in one transaction.
pub struct PgReplyInbox {
    replies: GroupCommit<Replies>,
}

impl PgReplyInbox {
    /// Starts the replies' batching task; call inside the runtime.
    pub fn new(pool: DbPool) -> Self {
        Self { replies: GroupCommit::start(Replies { pool }) }
    }
}

#[async_trait]
impl ReplyInbox for PgReplyInbox {
    async fn settle_reply(
        &self,
        delivery: Uuid,
        reply: WarehouseReply,
        now: time::OffsetDateTime,
        fold: FoldReply,
    ) -> Result<Option<Order>, RepoError> {
        self.replies.submit(ReplyRequest { event_id: delivery, reply, now, fold }).await
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
        self.replies.fold_delivered(event.id, reply).await.map(drop).map_err(|e| HandlerError::new(e.to_string()))
    }
}

/// One reply to fold in, the event it came in, and how.
struct ReplyRequest {
    event_id: Uuid,
    reply: WarehouseReply,
    now: time::OffsetDateTime,
    fold: FoldReply,
}

/// Replies, one or many per transaction.
struct Replies {
    pool: DbPool,
}

#[async_trait]
impl Batched for Replies {
    type Request = ReplyRequest;
    type Outcome = Option<Order>;
    type Error = RepoError;
    type Key = Uuid;

    fn key(request: &ReplyRequest) -> Uuid {
        request.reply.order_id()
    }

    #[tracing::instrument(name = "order_replies.fold_many", skip_all, fields(replies = requests.len()))]
    async fn many(&self, requests: &[&ReplyRequest]) -> Result<Vec<Option<Order>>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        handing_over(
            &self.pool,
            postgres_toolkit::pipeline::transaction(&mut conn, async |conn| -> Result<Vec<Option<Order>>, TxError> {
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
                // One decision per request, in order; `None` for a delivery handled before, an order
                // that is gone, or a reply the order does not take.
                let mut changes: Vec<Option<OrderChange>> = Vec::with_capacity(requests.len());
                for request in requests {
                    let loaded = loaded.remove(&request.reply.order_id()).filter(|_| first.contains(&request.event_id));
                    let change = match loaded {
                        Some((row, lines)) => {
                            let order = row.into_order(lines).map_err(TxError::Refused)?;
                            (request.fold)(&order, &request.reply, request.now)
                        }
                        None => None,
                    };
                    changes.push(change);
                }
                let written: Vec<&OrderChange> = changes.iter().flatten().collect();
                if !store::write_changes(conn, &written).await? {
                    // Impossible while the rows are locked; fail so the bus retries.
                    return Err(TxError::Refused(RepoError::Stale));
                }
                Ok(changes.into_iter().map(|change| change.map(|change| change.order)).collect())
            }),
        )
        .await
        .map_err(tx_error)
    }

    fn lost() -> RepoError {
        RepoError::Unknown("the reply's batch was lost".to_owned())
    }
}
