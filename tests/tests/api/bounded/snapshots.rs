//! One snapshot per answer, and no event left waiting for an instance that is gone (docs/bounded-work.md).

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use futures_util::future::join;
use serde_json::{json, Value};
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::commerce_support::{customer, delete, get, line, order, post, product, scalar};

const ORDERS: &str = "/api/v1/order-mgmt/orders";

/// The order's total from its own lines, tax and discount, as the answer states them.
fn adds_up(order: &Value) -> bool {
    let lines: i64 = order["lines"].as_array().map_or(0, |l| l.iter().filter_map(|l| l["subtotal"].as_i64()).sum());
    let (tax, discount) = (order["tax"].as_i64().unwrap_or(0), order["discount"].as_i64().unwrap_or(0));
    order["subtotal"].as_i64() == Some(lines) && order["total"].as_i64() == Some((lines + tax - discount).max(0))
}

#[actix_web::test]
async fn an_order_read_during_line_changes_always_adds_up() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-SNAP").await;
    let widget_id = widget["id"].as_str().expect("id").to_owned();
    let id = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &id, &widget_id, 1, 100).await;
    let changes = async {
        for n in 0..60 {
            let (status, body) = post(
                &app,
                &admin,
                &format!("{ORDERS}/{id}/lines"),
                json!({"product_id": widget_id, "quantity": 1 + n % 3, "unit_price": 100 + n, "currency": "USD"}),
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
            if let Some(line_id) =
                body["data"]["lines"].as_array().and_then(|l| l.first()).and_then(|l| l["id"].as_str())
            {
                if n % 2 == 0 {
                    delete(&app, &admin, &format!("{ORDERS}/{id}/lines/{line_id}")).await;
                }
            }
        }
    };
    let reads = async {
        let mut seen = 0;
        for _ in 0..200 {
            let (status, body) = get(&app, &admin, &format!("{ORDERS}/{id}")).await;
            assert_eq!(status, StatusCode::OK);
            assert!(adds_up(&body["data"]), "a read saw lines and a total of different moments: {body}");
            let (_, list) = get(&app, &admin, &format!("{ORDERS}?customer_id={buyer}")).await;
            for listed in list["data"].as_array().into_iter().flatten() {
                assert!(adds_up(listed), "a listed order does not add up: {listed}");
            }
            seen += 1;
            tokio::task::yield_now().await;
        }
        seen
    };
    let ((), seen) = join(changes, reads).await;
    assert_eq!(seen, 200);
    t.stop().await;
}

#[actix_web::test]
async fn the_events_in_flight_at_a_dead_instance_are_taken_over() {
    let t = TestApp::start().await;
    let dead = uuid::Uuid::now_v7();
    let alive = uuid::Uuid::now_v7();
    let mut conn = AsyncPgConnection::establish(&t.db.url).await.expect("conn");
    // Two events in flight: one at an instance last seen a minute ago, one at an instance just seen.
    conn.batch_execute(&format!(
        "INSERT INTO bus_instances (id, seen_at) VALUES ('{dead}', now() - interval '1 minute'), ('{alive}', now()); \
         INSERT INTO outbox_events (id, name, aggregate_id, occurred_at, data, published_at) VALUES \
           ('{dead}', 'test.orphaned', '{dead}', now(), '{{}}', now()), \
           ('{alive}', 'test.held', '{alive}', now(), '{{}}', now()); \
         INSERT INTO outbox_in_flight (event_id, instance_id) VALUES ('{dead}', '{dead}'), ('{alive}', '{alive}')"
    ))
    .await
    .expect("the instances' state");
    let taken =
        postgres_toolkit::events::instances::take_over_dead(&t.state.event_pool, std::time::Duration::from_secs(30))
            .await
            .expect("take over");
    assert_eq!(taken, 1, "only the dead instance's event");
    let in_flight = |id: uuid::Uuid| format!("SELECT count(*) AS n FROM outbox_in_flight WHERE event_id = '{id}'");
    assert_eq!(scalar(&t.state.pool, &in_flight(alive)).await, 1, "a live instance keeps its own");
    assert_eq!(scalar(&t.state.pool, &in_flight(dead)).await, 0);
    assert_eq!(
        scalar(&t.state.pool, "SELECT count(*) AS n FROM bus_instances WHERE seen_at < now() - interval '30 seconds'")
            .await,
        0
    );
    // Handed back to the relay, which delivers it again to this instance's bus.
    t.state.outbox.notify();
    let handled = format!("SELECT count(*) AS n FROM outbox_events WHERE id = '{dead}' AND published_at IS NOT NULL");
    let mut delivered = 0;
    for _ in 0..100 {
        delivered = scalar(&t.state.pool, &handled).await;
        if delivered == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(delivered, 1, "the relay published the orphaned event again");
    // Every connection of this process names this instance; what it puts in flight is its own.
    let named = format!("SELECT count(*) AS n FROM bus_instances WHERE id = '{}'", postgres_toolkit::db::instance_id());
    assert_eq!(scalar(&t.state.pool, &named).await, 1, "this instance said it is alive");
    t.stop().await;
}
