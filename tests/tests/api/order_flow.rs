//! The order → warehouse → order flow over the event bus, on both buses: reservation across
//! locations, failure, release, commit, redelivery, a release overtaking its reservation, and
//! concurrent confirmations against scarce stock.

use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use shared_kernel::EventEnvelope;
use tally_tests::{login, redis_url, unique_prefix, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{
    assert_ledger_balances, customer, get, line, location, order, post, product, scalar, stock, wait_for,
};

const ORDERS: &str = "/api/v1/order-mgmt/orders";
const INVENTORY: &str = "/api/v1/warehouse/inventory";

/// (on hand, reserved, committed) of a record.
async fn quantities<S, B>(app: &S, token: &str, record: &Value) -> (i64, i64, i64)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let (_, body) = get(app, token, &format!("{INVENTORY}/{}", record["id"].as_str().expect("id"))).await;
    let d = &body["data"];
    (
        d["quantity_on_hand"].as_i64().unwrap_or(-1),
        d["quantity_reserved"].as_i64().unwrap_or(-1),
        d["quantity_committed"].as_i64().unwrap_or(-1),
    )
}

/// Waits until the SQL count `sql` (selected `AS n`) reaches `expected`.
async fn wait_for_count(pool: &postgres_toolkit::DbPool, sql: &str, expected: i64, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let n = scalar(pool, sql).await;
        if n == expected {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}: {n} ≠ {expected}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Confirm → reserved across locations → process → fulfil → committed; a short order fails; a
/// cancelled order releases. Shared by both buses.
async fn run_flow(t: &TestApp) {
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let (widget, gadget) = (product(&app, &admin, "W-1").await, product(&app, &admin, "G-1").await);
    let (kyiv, lviv, closed) = (
        location(&app, &admin, "KYIV").await,
        location(&app, &admin, "LVIV").await,
        location(&app, &admin, "CLOSED").await,
    );
    let w_kyiv = stock(&app, &admin, &widget, &kyiv, 3).await;
    let w_lviv = stock(&app, &admin, &widget, &lviv, 8).await;
    let w_closed = stock(&app, &admin, &widget, &closed, 100).await;
    let g_kyiv = stock(&app, &admin, &gadget, &kyiv, 5).await;
    let (status, _) = post(
        &app,
        &admin,
        &format!("/api/v1/warehouse/locations/{}/deactivate", closed["id"].as_str().expect("id")),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let first = order(&app, &admin, buyer, json!({})).await;
    let id = first["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &id, widget["id"].as_str().expect("id"), 10, 100).await;
    line(&app, &admin, &id, gadget["id"].as_str().expect("id"), 2, 100).await;
    let (status, confirmed) = post(&app, &admin, &format!("{ORDERS}/{id}/confirm"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{confirmed}");
    let reserved = wait_for(&app, &admin, &format!("{ORDERS}/{id}"), "reservation", |b| {
        b["data"]["reservation_status"] != "pending"
    })
    .await;
    assert_eq!(reserved["data"]["reservation_status"], "reserved", "{reserved}");
    // Most available active location first, spanning locations; the inactive one is not touched.
    assert_eq!(quantities(&app, &admin, &w_lviv).await, (8, 8, 0));
    assert_eq!(quantities(&app, &admin, &w_kyiv).await, (3, 2, 0));
    assert_eq!(quantities(&app, &admin, &w_closed).await, (100, 0, 0));
    assert_eq!(quantities(&app, &admin, &g_kyiv).await, (5, 2, 0));
    let (_, movements) = get(&app, &admin, &format!("/api/v1/warehouse/stock-movements/reference/{id}")).await;
    assert_eq!(movements["pagination"]["total"], 3, "one Reservation per record: {movements}");
    assert!(movements["data"]
        .as_array()
        .expect("array")
        .iter()
        .all(|m| m["type"] == "Reservation" && m["reference_type"] == "order"));

    let (status, _) = post(&app, &admin, &format!("{ORDERS}/{id}/process"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, fulfilled) = post(&app, &admin, &format!("{ORDERS}/{id}/fulfill"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{fulfilled}");
    assert!(fulfilled["data"]["fulfilled_at"].is_string());
    let committed =
        wait_for(&app, &admin, &format!("{ORDERS}/{id}"), "commit", |b| b["data"]["reservation_status"] == "committed")
            .await;
    assert_eq!(committed["data"]["status"], "fulfilled");
    assert_eq!(quantities(&app, &admin, &w_lviv).await, (0, 0, 8));
    assert_eq!(quantities(&app, &admin, &w_kyiv).await, (1, 0, 2));
    assert_eq!(quantities(&app, &admin, &g_kyiv).await, (3, 0, 2));

    // Too little left: the reservation fails as a whole and says why.
    let short = order(&app, &admin, buyer, json!({})).await;
    let short_id = short["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &short_id, gadget["id"].as_str().expect("id"), 1, 100).await;
    line(&app, &admin, &short_id, widget["id"].as_str().expect("id"), 5, 100).await;
    post(&app, &admin, &format!("{ORDERS}/{short_id}/confirm"), json!({})).await;
    let failed = wait_for(&app, &admin, &format!("{ORDERS}/{short_id}"), "failure", |b| {
        b["data"]["reservation_status"] == "failed"
    })
    .await;
    let reason = failed["data"]["reservation_error"].as_str().expect("reason");
    assert!(reason.contains("insufficient stock") && reason.contains(widget["id"].as_str().expect("id")), "{reason}");
    assert_eq!(quantities(&app, &admin, &g_kyiv).await, (3, 0, 2), "all or nothing: the gadget was not held");
    let (status, cancelled) = post(&app, &admin, &format!("{ORDERS}/{short_id}/cancel"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    wait_for(&app, &admin, &format!("{ORDERS}/{short_id}"), "release of a failed order", |b| {
        b["data"]["reservation_status"] == "released"
    })
    .await;

    // A cancelled order gives back exactly what it held.
    let third = order(&app, &admin, buyer, json!({})).await;
    let third_id = third["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &third_id, gadget["id"].as_str().expect("id"), 3, 100).await;
    post(&app, &admin, &format!("{ORDERS}/{third_id}/confirm"), json!({})).await;
    wait_for(&app, &admin, &format!("{ORDERS}/{third_id}"), "reservation", |b| {
        b["data"]["reservation_status"] == "reserved"
    })
    .await;
    assert_eq!(quantities(&app, &admin, &g_kyiv).await, (3, 3, 2));
    post(&app, &admin, &format!("{ORDERS}/{third_id}/cancel"), json!({})).await;
    let released = wait_for(&app, &admin, &format!("{ORDERS}/{third_id}"), "release", |b| {
        b["data"]["reservation_status"] == "released"
    })
    .await;
    assert_eq!(released["data"]["status"], "cancelled");
    assert_eq!(quantities(&app, &admin, &g_kyiv).await, (3, 0, 2));
    let (_, third_moves) = get(&app, &admin, &format!("/api/v1/warehouse/stock-movements/reference/{third_id}")).await;
    assert_eq!(third_moves["data"][0]["type"], "ReservationRelease");
    assert_ledger_balances(&t.state.pool).await;
}

#[actix_web::test]
async fn the_order_flow_runs_on_the_in_process_bus() {
    let t = TestApp::start().await;
    run_flow(&t).await;
    t.stop().await;
}

#[actix_web::test]
async fn the_order_flow_runs_on_redis_streams() {
    let options = TestOptions::default()
        .with_env("EVENT_BUS", "redis")
        .with_env("REDIS_URL", redis_url())
        .with_env("REDIS_KEY_PREFIX", unique_prefix("orders"));
    let t = TestApp::start_with(options).await;
    assert!(t.state.bus.is_durable(), "the Redis Streams bus is in use");
    run_flow(&t).await;
    t.stop().await;
}

#[actix_web::test]
async fn twenty_concurrent_confirmations_never_reserve_more_than_on_hand() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-1").await;
    let (kyiv, lviv) = (location(&app, &admin, "KYIV").await, location(&app, &admin, "LVIV").await);
    let records = [stock(&app, &admin, &widget, &kyiv, 9).await, stock(&app, &admin, &widget, &lviv, 6).await];
    let mut ids = Vec::new();
    for _ in 0..20 {
        let created = order(&app, &admin, buyer, json!({})).await;
        let id = created["id"].as_str().expect("id").to_owned();
        line(&app, &admin, &id, widget["id"].as_str().expect("id"), 2, 100).await;
        ids.push(id);
    }
    let uris: Vec<String> = ids.iter().map(|id| format!("{ORDERS}/{id}/confirm")).collect();
    let confirmations = join_all(uris.iter().map(|uri| post(&app, &admin, uri, json!({})))).await;
    assert!(confirmations.iter().all(|(status, _)| *status == StatusCode::OK));
    let mut outcomes = Vec::new();
    for id in &ids {
        let body = wait_for(&app, &admin, &format!("{ORDERS}/{id}"), "an answer", |b| {
            b["data"]["reservation_status"] != "pending"
        })
        .await;
        outcomes.push(body["data"]["reservation_status"].as_str().expect("status").to_owned());
    }
    let reserved = outcomes.iter().filter(|s| *s == "reserved").count() as i64;
    assert_eq!(outcomes.iter().filter(|s| *s == "failed").count() as i64, 20 - reserved, "{outcomes:?}");
    assert_eq!(reserved, 7, "15 on hand hold seven orders of 2");
    let mut total_reserved = 0;
    for record in &records {
        let (on_hand, held, _) = quantities(&app, &admin, record).await;
        assert!(held <= on_hand);
        total_reserved += held;
    }
    assert_eq!(total_reserved, 2 * reserved);
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

fn order_event(name: &str, order_id: Uuid, product_id: &str, quantity: i64) -> EventEnvelope {
    let data = json!({"order_id": order_id, "order_number": "ORD-2026-999999", "customer_id": Uuid::now_v7(),
                      "currency": "USD", "lines": [{"line_id": Uuid::now_v7(), "product_id": product_id, "quantity": quantity}]});
    EventEnvelope::new(name, order_id, data)
}

#[actix_web::test]
async fn a_redelivered_confirmation_reserves_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let record = stock(&app, &admin, &widget, &location(&app, &admin, "KYIV").await, 10).await;
    let order_id = Uuid::now_v7();
    let confirmed = order_event("order.confirmed", order_id, widget["id"].as_str().expect("id"), 4);
    t.state.bus.publish(&confirmed).await.expect("publish");
    t.state.bus.publish(&confirmed).await.expect("publish again");
    let handled = format!(
        "SELECT count(*) AS n FROM inbox WHERE event_id = '{}' AND handler = 'warehouse.order_events'",
        confirmed.id
    );
    wait_for_count(&t.state.pool, &handled, 1, "the confirmation handled").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(quantities(&app, &admin, &record).await, (10, 4, 0), "reserved once");
    let reservations =
        format!("SELECT count(*) AS n FROM stock_movements WHERE reference_id = '{order_id}' AND type = 'Reservation'");
    assert_eq!(scalar(&t.state.pool, &reservations).await, 1);
    let replies = format!("SELECT count(*) AS n FROM outbox_events WHERE name = 'warehouse.stock_reserved' AND aggregate_id = '{order_id}'");
    assert_eq!(scalar(&t.state.pool, &replies).await, 1, "one reply");
    t.stop().await;
}

#[actix_web::test]
async fn a_cancellation_handled_before_its_confirmation_leaves_nothing_reserved() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let record = stock(&app, &admin, &widget, &location(&app, &admin, "KYIV").await, 10).await;
    let order_id = Uuid::now_v7();
    let product_id = widget["id"].as_str().expect("id");
    let cancelled = order_event("order.cancelled", order_id, product_id, 4);
    t.state.bus.publish(&cancelled).await.expect("publish");
    let released =
        format!("SELECT count(*) AS n FROM order_stock_holds WHERE order_id = '{order_id}' AND status = 'released'");
    wait_for_count(&t.state.pool, &released, 1, "the release recorded").await;
    let confirmed = order_event("order.confirmed", order_id, product_id, 4);
    t.state.bus.publish(&confirmed).await.expect("publish");
    let handled = format!(
        "SELECT count(*) AS n FROM inbox WHERE event_id = '{}' AND handler = 'warehouse.order_events'",
        confirmed.id
    );
    wait_for_count(&t.state.pool, &handled, 1, "the late confirmation handled").await;
    assert_eq!(quantities(&app, &admin, &record).await, (10, 0, 0), "nothing stays reserved");
    let reservations = format!("SELECT count(*) AS n FROM stock_movements WHERE reference_id = '{order_id}'");
    assert_eq!(scalar(&t.state.pool, &reservations).await, 0, "no movement at all");
    t.stop().await;
}
