//! Inventory and stock movements through the HTTP API: every quantity operation with its movement,
//! the rejections, the movement endpoints, the append-only ledger and concurrent reservations.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{assert_error, assert_ledger_balances, delete, get, location, post, product, put, stock};

const INVENTORY: &str = "/api/v1/warehouse/inventory";
const MOVEMENTS: &str = "/api/v1/warehouse/stock-movements";

/// Asserts the record's (on hand, reserved, available, committed) and the movement's type and
/// before/after pairs.
fn check(answer: &Value, quantities: [i64; 4], kind: &str, on_hand: (i64, i64), reserved: (i64, i64)) {
    let i = &answer["data"]["inventory"];
    let got = ["quantity_on_hand", "quantity_reserved", "quantity_available", "quantity_committed"]
        .map(|f| i[f].as_i64().unwrap_or(-1));
    assert_eq!(got, quantities, "{answer}");
    let m = &answer["data"]["movement"];
    assert_eq!(m["type"], kind, "{answer}");
    assert_eq!(
        (m["quantity_before"].as_i64(), m["quantity_after"].as_i64()),
        (Some(on_hand.0), Some(on_hand.1)),
        "{answer}"
    );
    assert_eq!(
        (m["reserved_before"].as_i64(), m["reserved_after"].as_i64()),
        (Some(reserved.0), Some(reserved.1)),
        "{answer}"
    );
    assert_eq!(m["inventory_id"], i["id"]);
    assert!(m["quantity"].as_i64().is_some_and(|q| q > 0));
}

#[actix_web::test]
async fn every_quantity_operation_writes_its_movement() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let (kyiv, lviv) = (location(&app, &admin, "KYIV").await, location(&app, &admin, "LVIV").await);
    let (status, created) = post(
        &app,
        &admin,
        INVENTORY,
        json!({"product_id": widget["id"], "location_id": kyiv["id"],
        "quantity_on_hand": 10, "reorder_point": 5, "min_stock": 2, "max_stock": 100}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let record = &created["data"];
    assert_eq!(
        (record["quantity_on_hand"].as_i64(), record["quantity_available"].as_i64(), record["reorder_point"].as_i64()),
        (Some(10), Some(10), Some(5))
    );
    let id = record["id"].as_str().expect("id").to_owned();
    let op = |name: &str| format!("{INVENTORY}/{id}/{name}");
    let order = Uuid::now_v7();

    let received = post(
        &app,
        &admin,
        &op("receive"),
        json!({"quantity": 5, "unit_cost": 150, "currency": "USD",
        "reference_type": "purchase_order", "reference_id": order, "reason": "delivery"}),
    )
    .await;
    check(&received.1, [15, 0, 15, 0], "Receipt", (10, 15), (0, 0));
    let m = &received.1["data"]["movement"];
    assert_eq!(
        (m["unit_cost"].as_i64(), m["total_cost"].as_i64(), m["currency"].as_str()),
        (Some(150), Some(750), Some("USD"))
    );
    assert_eq!((m["reference_type"].as_str(), m["reason"].as_str()), (Some("purchase_order"), Some("delivery")));
    assert!(m["created_by"].is_string(), "the acting user is recorded");
    check(
        &post(&app, &admin, &op("reserve"), json!({"quantity": 6, "order_id": order})).await.1,
        [15, 6, 9, 0],
        "Reservation",
        (15, 15),
        (0, 6),
    );
    check(
        &post(&app, &admin, &op("release"), json!({"quantity": 2, "order_id": order})).await.1,
        [15, 4, 11, 0],
        "ReservationRelease",
        (15, 15),
        (6, 4),
    );
    check(
        &post(&app, &admin, &op("commit"), json!({"quantity": 3, "order_id": order})).await.1,
        [12, 1, 11, 3],
        "Commit",
        (15, 12),
        (4, 1),
    );
    check(
        &post(&app, &admin, &op("adjust"), json!({"quantity_delta": -2, "reason": "count"})).await.1,
        [10, 1, 9, 3],
        "Adjustment",
        (12, 10),
        (1, 1),
    );
    check(
        &post(&app, &admin, &op("adjust"), json!({"quantity_delta": 4, "reason": "found"})).await.1,
        [14, 1, 13, 3],
        "Adjustment",
        (10, 14),
        (1, 1),
    );
    check(
        &post(&app, &admin, &op("damage"), json!({"quantity": 1, "reason": "crushed"})).await.1,
        [13, 1, 12, 3],
        "Damage",
        (14, 13),
        (1, 1),
    );
    let returned =
        post(&app, &admin, &op("return"), json!({"quantity": 2, "order_id": order, "reason": "unwanted"})).await;
    check(&returned.1, [15, 1, 14, 3], "Return", (13, 15), (1, 1));
    assert_eq!(returned.1["data"]["movement"]["reference_id"], order.to_string());

    let (status, moved) =
        post(&app, &admin, &op("transfer"), json!({"to_location_id": lviv["id"], "quantity": 5})).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(
        (moved["data"]["from"]["quantity_on_hand"].as_i64(), moved["data"]["to"]["quantity_on_hand"].as_i64()),
        (Some(10), Some(5))
    );
    let pair = moved["data"]["movements"].as_array().expect("two movements");
    assert_eq!(pair.len(), 2);
    assert!(pair.iter().all(|m| m["type"] == "Transfer" && m["reference_type"] == "transfer"));
    assert_eq!(pair[0]["reference_id"], pair[1]["reference_id"], "the pair is linked");
    assert_eq!((pair[1]["quantity_before"].as_i64(), pair[1]["quantity_after"].as_i64()), (Some(0), Some(5)));
    let (status, again) =
        post(&app, &admin, &op("transfer"), json!({"to_location_id": lviv["id"], "quantity": 1})).await;
    assert_eq!(
        (status, again["data"]["to"]["id"].clone()),
        (StatusCode::OK, moved["data"]["to"]["id"].clone()),
        "the existing record is used"
    );

    let (status, thresholds) =
        put(&app, &admin, &format!("{INVENTORY}/{id}"), json!({"reorder_point": 20, "min_stock": 1})).await;
    assert_eq!(status, StatusCode::OK, "{thresholds}");
    assert_eq!(
        (thresholds["data"]["reorder_point"].as_i64(), thresholds["data"]["max_stock"].as_i64()),
        (Some(20), None)
    );
    assert_eq!(thresholds["data"]["quantity_on_hand"], 9, "PUT changes only the thresholds");
    let (_, low) = get(&app, &admin, &format!("{INVENTORY}/low-stock")).await;
    assert_eq!(low["pagination"]["total"], 1);
    assert_eq!(low["data"][0]["id"], id);
    let (_, low_filter) = get(&app, &admin, &format!("{INVENTORY}?low_stock=true")).await;
    assert_eq!(low_filter["pagination"]["total"], 1);
    let (_, all) = get(&app, &admin, INVENTORY).await;
    assert_eq!(all["pagination"]["total"], 2);
    let (_, at_lviv) = get(
        &app,
        &admin,
        &format!(
            "{INVENTORY}?location_id={}&product_id={}",
            lviv["id"].as_str().expect("id"),
            widget["id"].as_str().expect("id")
        ),
    )
    .await;
    assert_eq!(at_lviv["pagination"]["total"], 1);
    let (status, one) = get(&app, &admin, &format!("{INVENTORY}/{id}")).await;
    assert_eq!((status, one["data"]["quantity_reserved"].as_i64()), (StatusCode::OK, Some(1)));

    assert_error(&delete(&app, &admin, &format!("{INVENTORY}/{id}")).await, StatusCode::CONFLICT, "STOCK_RESERVED");
    post(&app, &admin, &op("release"), json!({"quantity": 1, "order_id": order})).await;
    let (status, _) = delete(&app, &admin, &format!("{INVENTORY}/{id}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_error(&get(&app, &admin, &format!("{INVENTORY}/{id}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn inventory_rejections_have_their_codes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let record = stock(&app, &admin, &widget, &kyiv, 10).await;
    let id = record["id"].as_str().expect("id").to_owned();
    let op = |name: &str| format!("{INVENTORY}/{id}/{name}");
    let order = Uuid::now_v7();

    let duplicate = json!({"product_id": widget["id"], "location_id": kyiv["id"]});
    assert_error(&post(&app, &admin, INVENTORY, duplicate).await, StatusCode::CONFLICT, "ALREADY_EXISTS");
    assert_error(
        &post(&app, &admin, INVENTORY, json!({"product_id": Uuid::now_v7(), "location_id": kyiv["id"]})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &post(&app, &admin, INVENTORY, json!({"product_id": widget["id"], "location_id": Uuid::now_v7()})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    let other = location(&app, &admin, "LVIV").await;
    assert_error(
        &post(
            &app,
            &admin,
            INVENTORY,
            json!({"product_id": widget["id"], "location_id": other["id"], "quantity_on_hand": -1}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    let thresholds = post(
        &app,
        &admin,
        INVENTORY,
        json!({"product_id": widget["id"], "location_id": other["id"], "min_stock": 5, "max_stock": 1}),
    )
    .await;
    assert_error(&thresholds, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(thresholds.1["error"]["details"]["min_stock"].is_string());

    assert_error(
        &post(&app, &admin, &op("reserve"), json!({"quantity": 11, "order_id": order})).await,
        StatusCode::CONFLICT,
        "INSUFFICIENT_STOCK",
    );
    assert_error(
        &post(&app, &admin, &op("reserve"), json!({"quantity": 0, "order_id": order})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    assert_error(
        &post(&app, &admin, &op("reserve"), json!({"quantity": 1})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, &op("release"), json!({"quantity": 1, "order_id": order})).await,
        StatusCode::CONFLICT,
        "RESERVATION_EXCEEDED",
    );
    assert_error(
        &post(&app, &admin, &op("commit"), json!({"quantity": 1, "order_id": order})).await,
        StatusCode::CONFLICT,
        "RESERVATION_EXCEEDED",
    );
    assert_error(
        &post(&app, &admin, &op("receive"), json!({"quantity": -5})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    // A unit cost without a currency is in the product's currency (docs/conventions.md), not an error.
    let (status, defaulted) = post(&app, &admin, &op("receive"), json!({"quantity": 1, "unit_cost": 5})).await;
    assert_eq!((status, defaulted["data"]["movement"]["currency"].as_str()), (StatusCode::OK, Some("USD")));
    let (status, _) = post(&app, &admin, &op("adjust"), json!({"quantity_delta": -1, "reason": "undo"})).await;
    assert_eq!(status, StatusCode::OK, "back to the quantities the rest of this test expects");
    assert_error(
        &post(&app, &admin, &op("receive"), json!({"quantity": 1, "reference_type": "invoice"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, &op("receive"), json!({"quantity": i64::MAX})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    assert_error(
        &post(&app, &admin, &op("adjust"), json!({"quantity_delta": 0, "reason": "x"})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    assert_error(
        &post(&app, &admin, &op("adjust"), json!({"quantity_delta": 1, "reason": " "})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    post(&app, &admin, &op("reserve"), json!({"quantity": 4, "order_id": order})).await;
    // Nothing may push on hand below reserved (4).
    assert_error(
        &post(&app, &admin, &op("adjust"), json!({"quantity_delta": -7, "reason": "x"})).await,
        StatusCode::CONFLICT,
        "INSUFFICIENT_STOCK",
    );
    assert_error(
        &post(&app, &admin, &op("damage"), json!({"quantity": 7, "reason": "x"})).await,
        StatusCode::CONFLICT,
        "INSUFFICIENT_STOCK",
    );
    assert_error(
        &post(&app, &admin, &op("transfer"), json!({"to_location_id": other["id"], "quantity": 7})).await,
        StatusCode::CONFLICT,
        "INSUFFICIENT_STOCK",
    );
    assert_error(
        &post(&app, &admin, &op("transfer"), json!({"to_location_id": kyiv["id"], "quantity": 1})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, &op("transfer"), json!({"to_location_id": Uuid::now_v7(), "quantity": 1})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    let nobody = format!("{INVENTORY}/{}", Uuid::now_v7());
    assert_error(
        &post(&app, &admin, &format!("{nobody}/reserve"), json!({"quantity": 1, "order_id": order})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &get(&app, &admin, &format!("{INVENTORY}?product_id=zzz")).await,
        StatusCode::BAD_REQUEST,
        "INVALID_UUID",
    );
    assert_error(&delete(&app, &admin, &nobody).await, StatusCode::NOT_FOUND, "NOT_FOUND");

    let (_, user) = register_staff(&app, "clerk@example.com", "password-1").await;
    let (status, _) = get(&app, &user, &format!("{INVENTORY}/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_error(&post(&app, &user, &op("receive"), json!({"quantity": 1})).await, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_error(
        &post(&app, &user, MOVEMENTS, json!({"inventory_id": id, "type": "Receipt", "quantity": 1})).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    );
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn fifty_concurrent_reservations_of_one_against_ten_on_hand() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let record = stock(&app, &admin, &widget, &kyiv, 10).await;
    let uri = format!("{INVENTORY}/{}/reserve", record["id"].as_str().expect("id"));
    let results =
        join_all((0..50).map(|_| post(&app, &admin, &uri, json!({"quantity": 1, "order_id": Uuid::now_v7()})))).await;
    let ok = results.iter().filter(|(status, _)| *status == StatusCode::OK).count();
    let refused: Vec<_> = results.iter().filter(|(status, _)| *status != StatusCode::OK).collect();
    assert_eq!(ok, 10, "exactly the stock on hand is reserved");
    assert!(
        refused
            .iter()
            .all(|(status, body)| *status == StatusCode::CONFLICT && body["error"]["code"] == "INSUFFICIENT_STOCK"),
        "{refused:?}"
    );
    let (_, after) = get(&app, &admin, &format!("{INVENTORY}/{}", record["id"].as_str().expect("id"))).await;
    assert_eq!(
        (after["data"]["quantity_reserved"].as_i64(), after["data"]["quantity_available"].as_i64()),
        (Some(10), Some(0))
    );
    let (_, reservations) = get(&app, &admin, &format!("{MOVEMENTS}/type/Reservation")).await;
    assert_eq!(reservations["pagination"]["total"], 10, "one movement per successful reservation");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

/// A unit cost without a currency is in the product's currency, else in
/// `REPORTING_CURRENCY`; on `/receive` and on a Receipt posted to `/stock-movements`.
#[actix_web::test]
async fn a_unit_cost_without_currency_takes_the_products_then_the_reporting_currency() {
    let options = tally_tests::TestOptions::default().with_env("REPORTING_CURRENCY", "GBP");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let (status, priced) = post(
        &app,
        &admin,
        "/api/v1/warehouse/products",
        json!({"sku": "EUR-1", "name": "Priced", "price": 500, "currency": "EUR"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{priced}");
    let (status, unpriced) =
        post(&app, &admin, "/api/v1/warehouse/products", json!({"sku": "NONE-1", "name": "Unpriced"})).await;
    assert_eq!(status, StatusCode::CREATED, "{unpriced}");
    for (item, expected) in [(&priced["data"], "EUR"), (&unpriced["data"], "GBP")] {
        let record = stock(&app, &admin, item, &kyiv, 0).await;
        let id = record["id"].as_str().expect("id").to_owned();
        let (status, received) =
            post(&app, &admin, &format!("{INVENTORY}/{id}/receive"), json!({"quantity": 2, "unit_cost": 150})).await;
        assert_eq!(status, StatusCode::OK, "{received}");
        let m = &received["data"]["movement"];
        assert_eq!((m["currency"].as_str(), m["total_cost"].as_i64()), (Some(expected), Some(300)), "{received}");
        let (status, posted) = post(
            &app,
            &admin,
            MOVEMENTS,
            json!({"inventory_id": id, "type": "Receipt", "quantity": 1, "unit_cost": 70}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{posted}");
        assert_eq!(
            posted["data"]["movement"]["currency"].as_str().or(posted["data"]["currency"].as_str()),
            Some(expected),
            "{posted}"
        );
        // An explicit currency still wins, and must be an active code.
        let (_, explicit) = post(
            &app,
            &admin,
            &format!("{INVENTORY}/{id}/receive"),
            json!({"quantity": 1, "unit_cost": 5, "currency": "USD"}),
        )
        .await;
        assert_eq!(explicit["data"]["movement"]["currency"], "USD");
        let bad = post(
            &app,
            &admin,
            &format!("{INVENTORY}/{id}/receive"),
            json!({"quantity": 1, "unit_cost": 5, "currency": "XXX"}),
        )
        .await;
        assert_error(&bad, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    }
    t.stop().await;
}

/// A quantity operation answers the record with its incoming stock read in the change's own
/// transaction: when that read fails the change is rolled back with it, so an error never stands for
/// a change that was committed (a retry would apply it twice).
#[actix_web::test]
async fn a_quantity_change_answered_with_an_error_was_not_made() {
    use crate::commerce_support::scalar;
    use crate::purchasing_support::exec;
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let record = stock(&app, &admin, &widget, &kyiv, 10).await;
    let id = record["id"].as_str().expect("id").to_owned();
    // The incoming stock cannot be read any more (its table is out of reach).
    exec(&t.state.pool, "ALTER TABLE transfer_lines RENAME TO transfer_lines_away").await;
    let (status, answer) =
        post(&app, &admin, &format!("{INVENTORY}/{id}/adjust"), json!({"quantity_delta": 5, "reason": "count"})).await;
    exec(&t.state.pool, "ALTER TABLE transfer_lines_away RENAME TO transfer_lines").await;
    assert!(status.is_server_error(), "the answer cannot be made: {status} {answer}");
    let on_hand =
        scalar(&t.state.pool, &format!("SELECT quantity_on_hand AS n FROM inventory WHERE id = '{id}'")).await;
    assert_eq!(on_hand, 10, "answered with an error, the adjustment did not happen");
    let movements =
        scalar(&t.state.pool, &format!("SELECT count(*) AS n FROM stock_movements WHERE inventory_id = '{id}'")).await;
    assert_eq!(movements, 1, "only the initial receipt");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}
