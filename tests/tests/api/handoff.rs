//! Committed events handed to the bus from memory (`postgres_toolkit::events::handoff`): what is handed
//! over is exactly what committed, inserted already published; everything else (a rollback, a full
//! or closed queue, a cancelled transaction) is left to the outbox relay, which finds it unpublished,
//! and the relay is woken for exactly those.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use diesel::result::Error as DieselError;
use diesel::sql_types::{Bool, Text};
use diesel::QueryableByName;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use postgres_toolkit::db::{build_pool, PoolSettings};
use postgres_toolkit::events::{handing_over, record_event, DirectQueue, OutboxSignal};
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;
use shared_kernel::EventEnvelope;
use tally_tests::TestDb;
use tokio::sync::oneshot;
use uuid::Uuid;

/// A bus queue that records what it is offered; `room` and `open` say whether it takes more.
struct FakeQueue {
    room: bool,
    open: bool,
    offered: Mutex<Vec<Uuid>>,
}

impl FakeQueue {
    fn new(room: bool, open: bool) -> Arc<Self> {
        Arc::new(Self { room, open, offered: Mutex::new(Vec::new()) })
    }

    fn offered(&self) -> Vec<Uuid> {
        self.offered.lock().expect("lock").clone()
    }
}

impl DirectQueue for FakeQueue {
    fn has_room(&self) -> bool {
        self.room
    }

    fn offer(&self, event: EventEnvelope) -> Result<(), EventEnvelope> {
        if !self.open {
            return Err(event);
        }
        self.offered.lock().expect("lock").push(event.id);
        Ok(())
    }
}

async fn pool_handing_to(db: &TestDb, queue: &Arc<FakeQueue>) -> DbPool {
    let pool = build_pool(&PoolSettings::new(&db.url, 2)).expect("pool");
    pool.hand_events_to(queue.clone());
    pool
}

/// The relay's wake-up signal, given to `pool`.
fn relay_of(pool: &DbPool) -> OutboxSignal {
    let relay = OutboxSignal::default();
    pool.wake_relay_with(relay.clone());
    relay
}

/// Whether the relay was woken (now, or within a moment).
async fn woken(relay: &OutboxSignal) -> bool {
    tokio::time::timeout(Duration::from_millis(300), relay.woken()).await.is_ok()
}

fn event(name: &str) -> EventEnvelope {
    EventEnvelope::new(name, Uuid::now_v7(), serde_json::json!({}))
}

#[derive(QueryableByName, Debug, PartialEq)]
struct RowState {
    #[diesel(sql_type = Bool)]
    published: bool,
    /// Listed in `outbox_in_flight`: handed to the bus, its handlers not all done.
    #[diesel(sql_type = Bool)]
    in_flight: bool,
}

/// The outbox row's state, `None` when there is no row.
async fn row_state(pool: &DbPool, id: Uuid) -> Option<RowState> {
    let mut conn = pool.get().await.expect("connection");
    diesel::sql_query(
        "SELECT published_at IS NOT NULL AS published, \
           EXISTS (SELECT 1 FROM outbox_in_flight WHERE event_id = id) AS in_flight \
         FROM outbox_events WHERE id = $1::text::uuid",
    )
    .bind::<Text, _>(id.to_string())
    .get_result(&mut conn)
    .await
    .ok()
}

/// Records `events` in one transaction inside a hand-over; `fail` rolls it back.
async fn write(pool: &DbPool, events: &[EventEnvelope], fail: bool) -> Result<(), DieselError> {
    let mut conn = connect(pool).await.expect("connection");
    handing_over(
        pool,
        transaction(&mut conn, async |conn: &AsyncPgConnection| {
            record_event(conn, events).await?;
            if fail {
                return Err(DieselError::RollbackTransaction);
            }
            Ok(())
        }),
    )
    .await
}

#[actix_web::test]
async fn committed_events_are_handed_over_inserted_published() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    let (first, second) = (event("test.first"), event("test.second"));

    write(&pool, &[first.clone(), second.clone()], false).await.expect("write");
    assert!(!woken(&relay).await, "events handed over are no work for the relay");

    assert_eq!(queue.offered(), vec![first.id, second.id], "in the order recorded");
    for id in [first.id, second.id] {
        assert_eq!(
            row_state(&pool, id).await,
            Some(RowState { published: true, in_flight: true }),
            "published for the relay to leave alone, incomplete until the handlers are done"
        );
    }
}

#[actix_web::test]
async fn a_rolled_back_transaction_hands_nothing_over() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    let rolled_back = event("test.rolled_back");

    let failed = write(&pool, std::slice::from_ref(&rolled_back), true).await;
    assert!(!woken(&relay).await, "nothing was left to the relay");

    assert!(matches!(failed, Err(DieselError::RollbackTransaction)), "{failed:?}");
    assert!(queue.offered().is_empty(), "{:?}", queue.offered());
    assert_eq!(row_state(&pool, rolled_back.id).await, None);
    // The next transaction of the same hand-over machinery starts clean.
    let kept = event("test.kept");
    write(&pool, std::slice::from_ref(&kept), false).await.expect("write");
    assert_eq!(queue.offered(), vec![kept.id]);
}

#[actix_web::test]
async fn a_queue_at_its_mark_leaves_the_events_to_the_relay() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(false, true);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    let waiting = event("test.waiting");

    write(&pool, std::slice::from_ref(&waiting), false).await.expect("write");

    assert!(queue.offered().is_empty());
    assert_eq!(row_state(&pool, waiting.id).await, Some(RowState { published: false, in_flight: false }));
    assert!(woken(&relay).await, "the relay has an event to claim");
}

#[actix_web::test]
async fn an_event_the_queue_refuses_goes_back_to_the_relay() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, false);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    let refused = event("test.refused");

    write(&pool, std::slice::from_ref(&refused), false).await.expect("write");

    // Inserted published (the queue had room), then marked unpublished by a task of its own, which
    // wakes the relay once the mark is made.
    assert!(tokio::time::timeout(Duration::from_secs(10), relay.woken()).await.is_ok(), "the relay was not woken");
    assert_eq!(row_state(&pool, refused.id).await, Some(RowState { published: false, in_flight: false }));
}

#[actix_web::test]
async fn work_outside_a_hand_over_or_without_a_queue_leaves_events_to_the_relay() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let outside = event("test.outside");
    let mut conn = connect(&pool).await.expect("connection");
    transaction(&mut conn, async |conn: &AsyncPgConnection| record_event(conn, std::slice::from_ref(&outside)).await)
        .await
        .expect("write");
    assert_eq!(row_state(&pool, outside.id).await, Some(RowState { published: false, in_flight: false }));

    let unregistered = build_pool(&PoolSettings::new(&db.url, 1)).expect("pool");
    let relay = relay_of(&unregistered);
    let no_queue = event("test.no_queue");
    write(&unregistered, std::slice::from_ref(&no_queue), false).await.expect("write");
    assert_eq!(row_state(&pool, no_queue.id).await, Some(RowState { published: false, in_flight: false }));
    assert!(queue.offered().is_empty());
    assert!(woken(&relay).await, "without a queue every event is the relay's");
}

#[actix_web::test]
async fn a_cancelled_hand_over_hands_nothing_over_and_leaves_no_row() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let abandoned = event("test.abandoned");
    let (inserted, answered) = oneshot::channel();

    let mut conn = connect(&pool).await.expect("connection");
    let work = handing_over(
        &pool,
        transaction(&mut conn, async |conn: &AsyncPgConnection| -> Result<(), DieselError> {
            record_event(conn, std::slice::from_ref(&abandoned)).await?;
            let _ = inserted.send(());
            std::future::pending().await
        }),
    );
    tokio::select! {
        _ = work => panic!("the work never ends"),
        answered = answered => answered.expect("inserted"),
    }
    drop(conn);

    // The transaction never committed: nothing to hand over, and the return to the relay (which
    // waits a moment for a commit that might still land) finds no row to touch.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(queue.offered().is_empty());
    assert_eq!(row_state(&pool, abandoned.id).await, None);
}

#[actix_web::test]
async fn a_second_transaction_beside_the_first_leaves_its_events_to_the_relay() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    let (outer, inner) = (event("test.outer"), event("test.inner"));

    let mut conn = connect(&pool).await.expect("connection");
    handing_over(
        &pool,
        transaction(&mut conn, async |conn: &AsyncPgConnection| -> Result<(), DieselError> {
            record_event(conn, std::slice::from_ref(&outer)).await?;
            // A second transaction, on another connection, commits while the first is open: its
            // events are not the first's, and only the first's are handed over.
            let mut other = connect(&pool).await.expect("connection");
            transaction(&mut other, async |other: &AsyncPgConnection| {
                record_event(other, std::slice::from_ref(&inner)).await
            })
            .await
        }),
    )
    .await
    .expect("both committed");

    assert_eq!(queue.offered(), vec![outer.id]);
    assert_eq!(row_state(&pool, outer.id).await, Some(RowState { published: true, in_flight: true }));
    assert_eq!(row_state(&pool, inner.id).await, Some(RowState { published: false, in_flight: false }));
    assert!(woken(&relay).await, "the second transaction's event is the relay's");
}

#[actix_web::test]
async fn an_event_whose_commit_landed_after_the_work_was_dropped_goes_to_the_relay() {
    let db = TestDb::new().await;
    let queue = FakeQueue::new(true, true);
    let pool = pool_handing_to(&db, &queue).await;
    let relay = relay_of(&pool);
    // This event's COMMIT takes two seconds (a deferred trigger sleeps), so the work can be dropped
    // while COMMIT runs: the hand-over cannot know yet whether it will land.
    let mut admin = pool.get().await.expect("connection");
    diesel::sql_query(
        "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$",
    )
    .execute(&mut admin)
    .await
    .expect("function");
    diesel::sql_query(
        "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON outbox_events DEFERRABLE INITIALLY DEFERRED \
         FOR EACH ROW WHEN (NEW.name = 'test.slow_commit') EXECUTE FUNCTION slow_commit()",
    )
    .execute(&mut admin)
    .await
    .expect("trigger");
    drop(admin);
    let slow = event("test.slow_commit");

    let mut conn = connect(&pool).await.expect("connection");
    let work = handing_over(
        &pool,
        transaction(&mut conn, async |conn: &AsyncPgConnection| record_event(conn, std::slice::from_ref(&slow)).await),
    );
    assert!(tokio::time::timeout(Duration::from_millis(500), work).await.is_err(), "COMMIT was still running");
    drop(conn);

    // The commit lands about 1.5 s later; the hand-over waits for the transaction's end, then
    // returns the event to the relay and wakes it. Nothing was handed over from memory.
    assert!(tokio::time::timeout(Duration::from_secs(10), relay.woken()).await.is_ok(), "the relay was not woken");
    assert_eq!(row_state(&pool, slow.id).await, Some(RowState { published: false, in_flight: false }));
    assert!(queue.offered().is_empty(), "{:?}", queue.offered());
}
