//! The stock-movement endpoints through the HTTP API: posting operations as movements, every
//! list and look-up, and the append-only ledger enforced by the database.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use diesel_async::RunQueryDsl;
use serde_json::json;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{assert_error, assert_ledger_balances, get, location, post, product, stock};

const INVENTORY: &str = "/api/v1/warehouse/inventory";
const MOVEMENTS: &str = "/api/v1/warehouse/stock-movements";

#[actix_web::test]
async fn stock_movements_are_posted_listed_and_never_changed() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let record = stock(&app, &admin, &widget, &kyiv, 10).await;
    let id = record["id"].as_str().expect("id").to_owned();
    let order = Uuid::now_v7();

    let posts = [
        (
            json!({"inventory_id": id, "type": "Receipt", "quantity": 5, "unit_cost": 100, "currency": "EUR"}),
            "Receipt",
            15,
        ),
        (json!({"inventory_id": id, "type": "adjustment", "quantity_delta": -3, "reason": "count"}), "Adjustment", 12),
        (json!({"inventory_id": id, "type": "Damage", "quantity": 2, "reason": "wet"}), "Damage", 10),
        (json!({"inventory_id": id, "type": "Return", "quantity": 1, "order_id": order}), "Return", 11),
    ];
    for (body, kind, after) in posts {
        let (status, movement) = post(&app, &admin, MOVEMENTS, body).await;
        assert_eq!(status, StatusCode::CREATED, "{movement}");
        assert_eq!(
            (movement["data"]["type"].as_str(), movement["data"]["quantity_after"].as_i64()),
            (Some(kind), Some(after))
        );
    }
    assert_error(
        &post(&app, &admin, MOVEMENTS, json!({"inventory_id": id, "type": "Reservation", "quantity": 1})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, MOVEMENTS, json!({"inventory_id": id, "type": "Sale", "quantity": 1})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, MOVEMENTS, json!({"inventory_id": id, "type": "Damage", "quantity": 1})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &admin, MOVEMENTS, json!({"inventory_id": Uuid::now_v7(), "type": "Receipt", "quantity": 1})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    post(&app, &admin, &format!("{INVENTORY}/{id}/reserve"), json!({"quantity": 2, "order_id": order})).await;

    let (_, all) = get(&app, &admin, MOVEMENTS).await;
    assert_eq!(all["pagination"]["total"], 6, "initial receipt, four posted, one reservation");
    assert_eq!(all["data"][0]["type"], "Reservation", "newest first");
    let movement_id = all["data"][0]["id"].as_str().expect("id").to_owned();
    let (status, one) = get(&app, &admin, &format!("{MOVEMENTS}/{movement_id}")).await;
    assert_eq!((status, one["data"]["reserved_after"].as_i64()), (StatusCode::OK, Some(2)));
    assert_error(
        &get(&app, &admin, &format!("{MOVEMENTS}/{}", Uuid::now_v7())).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    let (_, receipts) = get(&app, &admin, &format!("{MOVEMENTS}?type=Receipt")).await;
    assert_eq!(receipts["pagination"]["total"], 2);
    let (_, by_type) = get(&app, &admin, &format!("{MOVEMENTS}/type/damage")).await;
    assert_eq!(by_type["pagination"]["total"], 1);
    let (_, for_order) = get(&app, &admin, &format!("{MOVEMENTS}/reference/{order}")).await;
    assert_eq!(for_order["pagination"]["total"], 2, "the return and the reservation");
    let (_, filtered) = get(&app, &admin, &format!("{MOVEMENTS}?reference_id={order}&type=Return")).await;
    assert_eq!(filtered["pagination"]["total"], 1);
    let (_, by_record) = get(&app, &admin, &format!("{MOVEMENTS}/inventory/{id}?page_size=4")).await;
    assert_eq!(
        (by_record["pagination"]["total"].as_i64(), by_record["data"].as_array().map(Vec::len)),
        (Some(6), Some(4))
    );
    let (_, by_filters) = get(
        &app,
        &admin,
        &format!(
            "{MOVEMENTS}?inventory_id={id}&product_id={}&location_id={}",
            widget["id"].as_str().expect("id"),
            kyiv["id"].as_str().expect("id")
        ),
    )
    .await;
    assert_eq!(by_filters["pagination"]["total"], 6);
    let today = time::OffsetDateTime::now_utc().date();
    let (_, dated) = get(&app, &admin, &format!("{MOVEMENTS}?date_from={today}&date_to={today}")).await;
    assert_eq!(dated["pagination"]["total"], 6);
    let (_, before) = get(&app, &admin, &format!("{MOVEMENTS}?date_to={}", today.previous_day().expect("date"))).await;
    assert_eq!(before["pagination"]["total"], 0);
    let (status, recent) = get(&app, &admin, &format!("{MOVEMENTS}/recent?limit=3")).await;
    assert_eq!((status, recent["data"].as_array().map(Vec::len)), (StatusCode::OK, Some(3)));
    assert_eq!(recent["data"][0]["id"], movement_id);
    let (_, default_recent) = get(&app, &admin, &format!("{MOVEMENTS}/recent")).await;
    assert_eq!(default_recent["data"].as_array().map(Vec::len), Some(6));
    assert_error(
        &get(&app, &admin, &format!("{MOVEMENTS}/recent?limit=101")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{MOVEMENTS}?type=Sale")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{MOVEMENTS}?reference_id=x")).await,
        StatusCode::BAD_REQUEST,
        "INVALID_UUID",
    );

    // The ledger is append-only in the database itself.
    let mut conn = t.state.pool.get().await.expect("conn");
    for sql in [
        "UPDATE stock_movements SET quantity = quantity + 1",
        "DELETE FROM stock_movements",
        "TRUNCATE stock_movements",
    ] {
        let refused = diesel::sql_query(sql).execute(&mut conn).await;
        assert!(refused.is_err_and(|e| e.to_string().contains("append-only")), "{sql} must fail");
    }
    drop(conn);
    let (_, still) = get(&app, &admin, MOVEMENTS).await;
    assert_eq!(still["pagination"]["total"], 6);
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn a_movement_names_its_records_product_and_location_or_none() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (widget, gadget) = (product(&app, &admin, "W-1").await, product(&app, &admin, "G-1").await);
    let (kyiv, lviv) = (location(&app, &admin, "KYIV").await, location(&app, &admin, "LVIV").await);
    let record = stock(&app, &admin, &widget, &kyiv, 10).await;
    stock(&app, &admin, &gadget, &lviv, 10).await;
    // A copy of the record's first movement under a new id, naming the given product and location.
    let copy = |product: &serde_json::Value, location: &serde_json::Value| {
        format!(
            "INSERT INTO stock_movements (id, inventory_id, product_id, location_id, type, quantity, \
                 quantity_before, quantity_after, reserved_before, reserved_after, reference_type, created_at) \
             SELECT gen_random_uuid(), inventory_id, '{}', '{}', type, quantity, quantity_before, \
                    quantity_after, reserved_before, reserved_after, reference_type, created_at \
             FROM stock_movements WHERE inventory_id = '{}'",
            product["id"].as_str().expect("product id"),
            location["id"].as_str().expect("location id"),
            record["id"].as_str().expect("record id"),
        )
    };
    let mut conn = t.state.pool.get().await.expect("conn");
    for (product, location) in [(&gadget, &kyiv), (&widget, &lviv), (&gadget, &lviv)] {
        let refused = diesel::sql_query(copy(product, location)).execute(&mut conn).await;
        assert!(
            refused.as_ref().is_err_and(|e| e.to_string().contains("stock_movements_inventory_fkey")),
            "a movement naming another product or location than its record's must fail: {refused:?}"
        );
    }
    let written = diesel::sql_query(copy(&widget, &kyiv)).execute(&mut conn).await;
    assert_eq!(written.expect("the record's own product and location"), 1);
    t.stop().await;
}

#[actix_web::test]
async fn every_foreign_key_of_orders_and_the_warehouse_is_indexed() {
    let t = TestApp::start().await;
    let unindexed = crate::commerce_support::scalar(
        &t.state.pool,
        "SELECT count(*) AS n FROM pg_constraint c \
         WHERE c.contype = 'f' AND c.conrelid::regclass::text IN \
               ('products', 'locations', 'inventory', 'stock_movements', 'orders', 'order_lines') \
           AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])",
    )
    .await;
    assert_eq!(unindexed, 0, "a foreign key without an index makes parent deletes scan the table");
    t.stop().await;
}
