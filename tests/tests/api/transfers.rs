//! Transfers between locations through the HTTP API (docs/purchasing-and-transfers.md): shipped,
//! received, cancelled in transit, all-or-nothing shipping, incoming stock at the destination, and
//! shipping racing with order reservations on the same stock.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::TestApp;
use uuid::Uuid;

use crate::commerce_support::{assert_error, assert_ledger_balances, get, location, post, product, stock};
use crate::purchasing_support::{events, manager, TRANSFERS};

fn availability(product: &Value) -> String {
    format!("/api/v1/warehouse/products/{}/availability", product["id"].as_str().unwrap_or(""))
}

fn on_hand_at(list: &Value, location: &Value) -> Option<i64> {
    list["data"].as_array()?.iter().find(|r| r["location_id"] == location["id"])?["quantity_on_hand"].as_i64()
}

#[actix_web::test]
async fn a_transfer_ships_arrives_and_is_put_back_when_cancelled_in_transit() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let (widget, gadget) = (product(&app, &boss, "W-1").await, product(&app, &boss, "G-1").await);
    let (kyiv, lviv) = (location(&app, &boss, "KYIV").await, location(&app, &boss, "LVIV").await);
    stock(&app, &boss, &widget, &kyiv, 10).await;
    stock(&app, &boss, &gadget, &kyiv, 1).await;
    let records = |p: &Value| format!("/api/v1/warehouse/inventory?product_id={}", p["id"].as_str().unwrap_or(""));

    let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"], "notes": "restock",
                      "lines": [{"product_id": widget["id"], "quantity": 4}, {"product_id": gadget["id"], "quantity": 2}]});
    let (status, short) = post(&app, &boss, TRANSFERS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{short}");
    assert_eq!(short["data"]["status"], "draft");
    assert!(short["data"]["transfer_number"].as_str().is_some_and(|n| n.starts_with("TR-")));
    let short_id = short["data"]["id"].as_str().expect("id").to_owned();
    assert_error(
        &post(&app, &boss, &format!("{TRANSFERS}/{short_id}/ship"), json!({})).await,
        StatusCode::CONFLICT,
        "INSUFFICIENT_STOCK",
    );
    let (_, kept) = get(&app, &boss, &records(&widget)).await;
    assert_eq!(on_hand_at(&kept, &kyiv), Some(10), "all or nothing: {kept}");

    let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"],
                      "lines": [{"product_id": widget["id"], "quantity": 4}]});
    let (_, created) = post(&app, &boss, TRANSFERS, body).await;
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let (status, shipped) = post(&app, &boss, &format!("{TRANSFERS}/{id}/ship"), json!({})).await;
    assert_eq!((status, shipped["data"]["status"].as_str()), (StatusCode::OK, Some("in_transit")), "{shipped}");
    let (_, in_transit) = get(&app, &boss, &availability(&widget)).await;
    assert_eq!(
        (in_transit["data"]["quantity_on_hand"].as_i64(), in_transit["data"]["quantity_incoming"].as_i64()),
        (Some(6), Some(4))
    );
    let (status, received) = post(&app, &boss, &format!("{TRANSFERS}/{id}/receive"), json!({})).await;
    assert_eq!((status, received["data"]["status"].as_str()), (StatusCode::OK, Some("received")), "{received}");
    let (_, after) = get(&app, &boss, &records(&widget)).await;
    assert_eq!((on_hand_at(&after, &kyiv), on_hand_at(&after, &lviv)), (Some(6), Some(4)), "{after}");
    assert_error(
        &post(&app, &boss, &format!("{TRANSFERS}/{id}/cancel"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    let (_, moves) = get(&app, &boss, &format!("/api/v1/warehouse/stock-movements?reference_id={id}")).await;
    assert_eq!(moves["data"].as_array().map(Vec::len), Some(2), "one movement at each end");
    assert_eq!(
        (events(&t.state.pool, "transfer.shipped", &id).await, events(&t.state.pool, "transfer.received", &id).await),
        (1, 1)
    );

    // Cancelled in transit: the stock goes back to the source.
    let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"],
                      "lines": [{"product_id": widget["id"], "quantity": 5}]});
    let (_, back) = post(&app, &boss, TRANSFERS, body).await;
    let back_id = back["data"]["id"].as_str().expect("id").to_owned();
    post(&app, &boss, &format!("{TRANSFERS}/{back_id}/ship"), json!({})).await;
    let (status, cancelled) = post(&app, &boss, &format!("{TRANSFERS}/{back_id}/cancel"), json!({})).await;
    assert_eq!((status, cancelled["data"]["status"].as_str()), (StatusCode::OK, Some("cancelled")), "{cancelled}");
    let (_, restored) = get(&app, &boss, &records(&widget)).await;
    assert_eq!(on_hand_at(&restored, &kyiv), Some(6), "{restored}");
    let (_, availability_now) = get(&app, &boss, &availability(&widget)).await;
    assert_eq!(availability_now["data"]["quantity_incoming"], 0);

    let (_, listed) = get(
        &app,
        &boss,
        &format!("{TRANSFERS}?status=cancelled&from_location_id={}", kyiv["id"].as_str().unwrap_or("")),
    )
    .await;
    assert_eq!(listed["pagination"]["total"], 1, "{listed}");
    // Bad input.
    let same = json!({"from_location_id": kyiv["id"], "to_location_id": kyiv["id"], "lines": [{"product_id": widget["id"], "quantity": 1}]});
    assert_error(&post(&app, &boss, TRANSFERS, same).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let none = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"], "lines": []});
    assert_error(&post(&app, &boss, TRANSFERS, none).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_error(
        &get(&app, &boss, &format!("{TRANSFERS}/{}", Uuid::now_v7())).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &get(&app, &boss, &format!("{TRANSFERS}?status=lost")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn shipping_racing_with_reservations_never_oversells() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let (kyiv, lviv) = (location(&app, &boss, "KYIV").await, location(&app, &boss, "LVIV").await);
    let record = stock(&app, &boss, &widget, &kyiv, 10).await;
    let reserve = format!("/api/v1/warehouse/inventory/{}/reserve", record["id"].as_str().expect("id"));
    let mut transfers = Vec::new();
    for _ in 0..5 {
        let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"],
                          "lines": [{"product_id": widget["id"], "quantity": 2}]});
        let (_, created) = post(&app, &boss, TRANSFERS, body).await;
        transfers.push(created["data"]["id"].as_str().expect("id").to_owned());
    }
    let ship_uris: Vec<String> = transfers.iter().map(|id| format!("{TRANSFERS}/{id}/ship")).collect();
    let ships = join_all(ship_uris.iter().map(|uri| post(&app, &boss, uri, json!({}))));
    let reservations =
        join_all((0..10).map(|_| post(&app, &boss, &reserve, json!({"quantity": 1, "order_id": Uuid::now_v7()}))));
    let (ships, reservations) = futures_util::join!(ships, reservations);
    let shipped = ships.iter().filter(|(s, _)| *s == StatusCode::OK).count() as i64;
    let reserved = reservations.iter().filter(|(s, _)| *s == StatusCode::OK).count() as i64;
    for (status, body) in ships.iter().chain(reservations.iter()) {
        assert!(*status == StatusCode::OK || body["error"]["code"] == "INSUFFICIENT_STOCK", "{status} {body}");
    }
    assert!(shipped * 2 + reserved <= 10, "never more than on hand: {shipped} shipped, {reserved} reserved");
    let (_, now) =
        get(&app, &boss, &format!("/api/v1/warehouse/inventory/{}", record["id"].as_str().unwrap_or(""))).await;
    assert_eq!(now["data"]["quantity_on_hand"].as_i64(), Some(10 - shipped * 2), "{now}");
    assert_eq!(now["data"]["quantity_reserved"].as_i64(), Some(reserved), "{now}");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

/// A destination record deleted while the arrival waited for it is a stale read: the arrival is
/// decided again and lands in a new record there, never `INSUFFICIENT_STOCK`.
#[actix_web::test]
async fn a_destination_deleted_during_an_arrival_is_made_again() {
    use crate::purchasing_support::deleted_while_waiting;
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let (kyiv, lviv) = (location(&app, &boss, "KYIV").await, location(&app, &boss, "LVIV").await);
    stock(&app, &boss, &widget, &kyiv, 10).await;
    let there = stock(&app, &boss, &widget, &lviv, 1).await;
    let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"],
                      "lines": [{"product_id": widget["id"], "quantity": 4}]});
    let (_, created) = post(&app, &boss, TRANSFERS, body).await;
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let (status, _) = post(&app, &boss, &format!("{TRANSFERS}/{id}/ship"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let uri = format!("{TRANSFERS}/{id}/receive");
    let arrival = post(&app, &boss, &uri, json!({}));
    let (status, received) = deleted_while_waiting(&t.state.pool, there["id"].as_str().expect("id"), arrival).await;
    assert_eq!((status, received["data"]["status"].as_str()), (StatusCode::OK, Some("received")), "{received}");
    let (_, records) =
        get(&app, &boss, &format!("/api/v1/warehouse/inventory?product_id={}", widget["id"].as_str().unwrap_or("")))
            .await;
    assert_eq!(on_hand_at(&records, &lviv), Some(4), "a new record holds the arrival: {records}");
    assert_eq!(on_hand_at(&records, &kyiv), Some(6));
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}
