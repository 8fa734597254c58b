//! The order flow's transactions shared by several events (`postgres_toolkit::group_commit`): a batch
//! of confirmations decides what one transaction per confirmation would, in arrival order (directly
//! and through the queue), and a burst of warehouse replies lands on every order once.

use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use postgres_toolkit::group_commit::{Batched, GroupCommit};
use postgres_toolkit::DbPool;
use serde_json::{json, Value};
use shared_kernel::EventEnvelope;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;
use warehouse_domain::{OrderStockRepository, ReservationLine, ReservationOutcome, Stamp};
use warehouse_postgres::reservation_batch::{ReservationRequest, Reservations};
use warehouse_postgres::PgOrderStockRepository;

use crate::commerce_support::{assert_ledger_balances, customer, location, product, scalar, stock};

const HANDLER: &str = "warehouse.order_events";

async fn exec(pool: &DbPool, sql: &str) {
    use diesel_async::RunQueryDsl;
    let mut conn = pool.get().await.expect("conn");
    diesel::sql_query(sql).execute(&mut conn).await.expect(sql);
}

fn request(product_id: Uuid, quantity: i64) -> ReservationRequest {
    let line = ReservationLine { line_id: Uuid::now_v7(), product_id, quantity };
    let stamp = Stamp { at: infrastructure_now(), by: None };
    ReservationRequest { event_id: Some(Uuid::now_v7()), order_id: Uuid::now_v7(), lines: vec![line], stamp }
}

fn infrastructure_now() -> time::OffsetDateTime {
    let t = time::OffsetDateTime::now_utc();
    t.replace_nanosecond(t.nanosecond() / 1_000 * 1_000).unwrap_or(t)
}

fn uuid_of(value: &Value) -> Uuid {
    value["id"].as_str().and_then(|s| s.parse().ok()).expect("an id")
}

#[actix_web::test]
async fn a_batch_of_confirmations_decides_what_one_transaction_each_would() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let widget_id = uuid_of(&widget);
    let kyiv = stock(&app, &admin, &widget, &location(&app, &admin, "KYIV").await, 9).await;
    let lviv = stock(&app, &admin, &widget, &location(&app, &admin, "LVIV").await, 6).await;
    // In arrival order: A takes 8 of 15, H was handled before, R was released (cancelled) before,
    // B takes 6, C asks 4 of the 1 left and fails, D takes the last one.
    let [a, h, r, b, c, d] = [8, 2, 2, 6, 4, 1].map(|quantity| request(widget_id, quantity));
    exec(
        &t.state.pool,
        &format!("INSERT INTO inbox (event_id, handler) VALUES ('{}', '{HANDLER}')", h.event_id.expect("an event")),
    )
    .await;
    exec(
        &t.state.pool,
        &format!("INSERT INTO order_stock_holds (order_id, status) VALUES ('{}', 'released')", r.order_id),
    )
    .await;
    let reservations = Reservations { pool: t.state.pool.clone(), handler: HANDLER };

    let outcomes = reservations.many(&[&a, &h, &r, &b, &c, &d]).await.expect("one transaction");

    assert!(
        matches!(outcomes[0], ReservationOutcome::Reserved(ref x) if x.iter().map(|a| a.quantity).sum::<i64>() == 8)
    );
    assert_eq!(outcomes[1], ReservationOutcome::AlreadyHandled);
    assert_eq!(outcomes[2], ReservationOutcome::AlreadyReleased);
    assert!(
        matches!(outcomes[3], ReservationOutcome::Reserved(ref x) if x.iter().map(|a| a.quantity).sum::<i64>() == 6)
    );
    let ReservationOutcome::Failed(ref short) = outcomes[4] else { panic!("C is short: {:?}", outcomes[4]) };
    assert_eq!((short[0].requested, short[0].available), (4, 1));
    assert!(matches!(outcomes[5], ReservationOutcome::Reserved(_)));
    let pool = &t.state.pool;
    let reserved_of =
        |record: &Value| format!("SELECT quantity_reserved AS n FROM inventory WHERE id = '{}'", uuid_of(record));
    assert_eq!(scalar(pool, &reserved_of(&kyiv)).await + scalar(pool, &reserved_of(&lviv)).await, 15, "8 + 6 + 1");
    assert_eq!(scalar(pool, &reserved_of(&kyiv)).await, 9, "never more than on hand");
    assert_ledger_balances(pool).await;
    // Each record's reservations follow one another from 0: every one starts where the one before ended.
    let unchained = "SELECT count(*) AS n FROM (SELECT reserved_before, lag(reserved_after, 1, 0::bigint) \
                       OVER (PARTITION BY inventory_id ORDER BY reserved_before) AS previous \
                     FROM stock_movements WHERE type = 'Reservation') m WHERE reserved_before <> previous";
    assert_eq!(scalar(pool, unchained).await, 0);
    // A takes 8 from Kyiv (the fullest), B 6 from Lviv, D the last one in Kyiv: one movement each.
    for (order, count) in [(&a, 1), (&h, 0), (&r, 0), (&b, 1), (&c, 0), (&d, 1)] {
        let movements = format!("SELECT count(*) AS n FROM stock_movements WHERE reference_id = '{}'", order.order_id);
        assert_eq!(scalar(pool, &movements).await, count, "movements of {}", order.order_id);
    }
    for (order, name) in [
        (&a, "warehouse.stock_reserved"),
        (&b, "warehouse.stock_reserved"),
        (&d, "warehouse.stock_reserved"),
        (&c, "warehouse.reservation_failed"),
    ] {
        let replies = format!(
            "SELECT count(*) AS n FROM outbox_events WHERE aggregate_id = '{}' AND name = '{name}'",
            order.order_id
        );
        assert_eq!(scalar(pool, &replies).await, 1, "{name} for {}", order.order_id);
    }
    for order in [&h, &r] {
        let replies = format!("SELECT count(*) AS n FROM outbox_events WHERE aggregate_id = '{}'", order.order_id);
        assert_eq!(scalar(pool, &replies).await, 0, "no reply for a skipped order");
    }
    for (order, status) in [(&a, "reserved"), (&b, "reserved"), (&c, "failed"), (&d, "reserved"), (&r, "released")] {
        let hold = format!(
            "SELECT count(*) AS n FROM order_stock_holds WHERE order_id = '{}' AND status = '{status}'",
            order.order_id
        );
        assert_eq!(scalar(pool, &hold).await, 1, "{status} hold of {}", order.order_id);
    }
    let inbox = format!("SELECT count(*) AS n FROM inbox WHERE handler = '{HANDLER}'");
    assert_eq!(scalar(pool, &inbox).await, 6, "every event handled once");

    // Delivered again, as a batch or one by one, nothing changes.
    let again = reservations.many(&[&a, &b]).await.expect("a second transaction");
    assert_eq!(again, vec![ReservationOutcome::AlreadyHandled, ReservationOutcome::AlreadyHandled]);
    assert_eq!(reservations.one(&d).await.expect("alone"), ReservationOutcome::AlreadyHandled);
    // One order twice in a batch (another event for it): the second finds the first's decision.
    let mut twin = request(widget_id, 1);
    twin.order_id = r.order_id;
    let fresh = request(widget_id, 1);
    let fresh_again = ReservationRequest { event_id: Some(Uuid::now_v7()), ..fresh.clone() };
    let outcomes = reservations.many(&[&twin, &fresh, &fresh_again]).await.expect("a transaction");
    assert_eq!(outcomes[0], ReservationOutcome::AlreadyReleased);
    assert!(matches!(outcomes[1], ReservationOutcome::Failed(_)), "nothing left: {:?}", outcomes[1]);
    assert_eq!(outcomes[2], ReservationOutcome::AlreadyHandled, "decided once");
    assert_eq!(scalar(pool, &reserved_of(&kyiv)).await + scalar(pool, &reserved_of(&lviv)).await, 15);

    // The port used directly (no event, no inbox): the same transaction for one order.
    exec(
        pool,
        &format!("UPDATE inventory SET quantity_on_hand = quantity_on_hand + 5 WHERE id = '{}'", uuid_of(&kyiv)),
    )
    .await;
    let stock = PgOrderStockRepository::new(pool.clone());
    let e = request(widget_id, 5);
    let outcome = stock.reserve_for_order(e.order_id, &e.lines, e.stamp).await.expect("reserves");
    assert!(matches!(outcome, ReservationOutcome::Reserved(_)), "{outcome:?}");
    let again = stock.reserve_for_order(e.order_id, &e.lines, e.stamp).await.expect("decides");
    assert_eq!(again, ReservationOutcome::AlreadyHandled, "the hold says it is done");
    assert_eq!(scalar(pool, &reserved_of(&kyiv)).await, 14);
    t.stop().await;
}

#[actix_web::test]
async fn a_burst_of_replies_lands_on_every_order_once() {
    let t = TestApp::start().await;
    let pool = &t.state.pool;
    let buyer = customer(pool).await;
    let orders: Vec<Uuid> = (0..12).map(|_| Uuid::now_v7()).collect();
    for (n, id) in orders.iter().enumerate() {
        exec(
            pool,
            &format!(
                "INSERT INTO orders (id, order_number, customer_id, currency, status, reservation_status, confirmed_at, \
                                     subtotal, total) \
                 VALUES ('{id}', 'ORD-2026-{:06}', '{buyer}', 'USD', 'confirmed', 'pending', now(), 100, 100)",
                900_000 + n
            ),
        )
        .await;
    }
    let reply = |name: &str, order_id: Uuid, data: Value| EventEnvelope::new(name, order_id, data);
    let mut burst: Vec<EventEnvelope> = orders[..11]
        .iter()
        .map(|&id| reply("warehouse.stock_reserved", id, json!({"order_id": id, "allocations": []})))
        .collect();
    let failed = orders[11];
    let short = json!([{"line_id": Uuid::now_v7(), "product_id": Uuid::now_v7(), "requested": 3, "available": 1}]);
    burst.push(reply(
        "warehouse.reservation_failed",
        failed,
        json!({"order_id": failed, "reason": "insufficient_stock", "short_lines": short}),
    ));
    // The first reply delivered twice in the same burst.
    burst.push(burst[0].clone());
    let published = join_all(burst.iter().map(|event| t.state.bus.publish(event))).await;
    assert!(published.iter().all(Result::is_ok));
    let handled = "SELECT count(*) AS n FROM inbox WHERE handler = 'orders.warehouse_replies'";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while scalar(pool, handled).await < 12 || t.state.bus.queue_depth() > 0 {
        assert!(std::time::Instant::now() < deadline, "every reply handled");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let reserved = format!(
        "SELECT count(*) AS n FROM orders WHERE reservation_status = 'reserved' AND id IN ({})",
        orders[..11].iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(",")
    );
    assert_eq!(scalar(pool, &reserved).await, 11);
    let failure = format!(
        "SELECT count(*) AS n FROM orders WHERE id = '{failed}' AND reservation_status = 'failed' \
         AND reservation_error LIKE 'insufficient_stock: product % requested 3, available 1'"
    );
    assert_eq!(scalar(pool, &failure).await, 1, "the failure and its reason kept");
    assert_eq!(scalar(pool, "SELECT count(*) AS n FROM dead_letters").await, 0, "the repeated reply failed nothing");
    t.stop().await;
}

#[actix_web::test]
async fn confirmations_queued_together_are_served_in_arrival_order() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let record = stock(&app, &admin, &widget, &location(&app, &admin, "KYIV").await, 15).await;
    let version = format!("SELECT version AS n FROM inventory WHERE id = '{}'", uuid_of(&record));
    let version_before = scalar(&t.state.pool, &version).await;
    let queue = GroupCommit::start(Reservations { pool: t.state.pool.clone(), handler: HANDLER });
    let requests: Vec<ReservationRequest> = (0..20).map(|_| request(uuid_of(&widget), 1)).collect();
    let outcomes = join_all(requests.iter().cloned().map(|r| queue.submit(r))).await;
    let served: Vec<bool> = outcomes.iter().map(|o| matches!(o, Ok(ReservationOutcome::Reserved(_)))).collect();
    assert_eq!(served, (0..20).map(|n| n < 15).collect::<Vec<_>>(), "{outcomes:?}");
    assert!(outcomes[15..].iter().all(|o| matches!(o, Ok(ReservationOutcome::Failed(_)))));
    let held = format!("SELECT quantity_reserved AS n FROM inventory WHERE id = '{}'", uuid_of(&record));
    assert_eq!(scalar(&t.state.pool, &held).await, 15);
    let written = scalar(&t.state.pool, &version).await - version_before;
    assert_eq!(written, 1, "one transaction for the lot: one write of the record");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}
