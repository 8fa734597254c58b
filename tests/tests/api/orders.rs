//! Orders through the HTTP API: the 14 endpoints, totals, every rejection and its code, and order
//! numbers under concurrency.

use std::collections::HashSet;

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::json;
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{assert_error, customer, delete, get, id_of, line, order, post, product, put};

const ORDERS: &str = "/api/v1/order-mgmt/orders";

#[actix_web::test]
async fn orders_are_created_read_listed_and_their_totals_follow_the_lines() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-1").await;
    let gadget = product(&app, &admin, "G-1").await;

    let created = order(&app, &admin, buyer, json!({"tax": 100, "discount": 50, "notes": " ring twice "})).await;
    let number = created["order_number"].as_str().expect("number").to_owned();
    let year = time::OffsetDateTime::now_utc().year();
    assert_eq!(number, format!("ORD-{year}-000001"));
    assert_eq!(created["status"], "pending");
    assert_eq!(created["reservation_status"], "none");
    assert_eq!(created["currency"], "USD");
    assert_eq!(created["customer_id"], buyer.to_string());
    assert_eq!(created["notes"], "ring twice");
    assert_eq!((created["subtotal"].as_i64(), created["total"].as_i64()), (Some(0), Some(50)));
    assert!(created["lines"].as_array().is_some_and(Vec::is_empty));
    assert!(created["confirmed_at"].is_null() && created["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    let id = created["id"].as_str().expect("id").to_owned();

    let with_line = line(&app, &admin, &id, widget["id"].as_str().expect("id"), 3, 250).await;
    let first = &with_line["lines"][0];
    assert_eq!(
        (first["quantity"].as_i64(), first["unit_price"].as_i64(), first["subtotal"].as_i64()),
        (Some(3), Some(250), Some(750))
    );
    assert_eq!(first["sku"], "W-1", "the product's SKU is copied");
    assert_eq!(first["description"], "Product W-1", "the product's name is copied");
    assert_eq!(first["order_id"], id);
    assert_eq!((with_line["subtotal"].as_i64(), with_line["total"].as_i64()), (Some(750), Some(800)));
    let two = line(&app, &admin, &id, gadget["id"].as_str().expect("id"), 1, 1000).await;
    assert_eq!((two["subtotal"].as_i64(), two["total"].as_i64()), (Some(1750), Some(1800)));

    let line_id = first["id"].as_str().expect("line id").to_owned();
    let (status, changed) = put(&app, &admin, &format!("{ORDERS}/{id}/lines/{line_id}"), json!({"quantity": 5})).await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["data"]["lines"][0]["subtotal"], 1250);
    assert_eq!((changed["data"]["subtotal"].as_i64(), changed["data"]["total"].as_i64()), (Some(2250), Some(2300)));
    // The snapshot never changes afterwards, even when the product does.
    let renamed = json!({"sku": "W-1B", "name": "Renamed", "price": 1, "currency": "USD"});
    let (status, _) =
        put(&app, &admin, &format!("/api/v1/warehouse/products/{}", widget["id"].as_str().expect("id")), renamed).await;
    assert_eq!(status, StatusCode::OK);
    let (status, removed) =
        delete(&app, &admin, &format!("{ORDERS}/{id}/lines/{}", two["lines"][1]["id"].as_str().expect("id"))).await;
    assert_eq!(status, StatusCode::OK, "{removed}");
    assert_eq!(removed["data"]["lines"].as_array().map(Vec::len), Some(1));
    assert_eq!(removed["data"]["lines"][0]["sku"], "W-1");
    assert_eq!((removed["data"]["subtotal"].as_i64(), removed["data"]["total"].as_i64()), (Some(1250), Some(1300)));

    // A discount above subtotal + tax gives a total of 0, never negative.
    let generous = order(&app, &admin, buyer, json!({"tax": 10, "discount": 100000})).await;
    let generous =
        line(&app, &admin, generous["id"].as_str().expect("id"), gadget["id"].as_str().expect("id"), 2, 300).await;
    assert_eq!((generous["subtotal"].as_i64(), generous["total"].as_i64()), (Some(600), Some(0)));

    let (status, by_id) = get(&app, &admin, &format!("{ORDERS}/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(by_id["data"]["total"], 1300);
    let (status, by_number) = get(&app, &admin, &format!("{ORDERS}/number/{}", number.to_lowercase())).await;
    assert_eq!(status, StatusCode::OK, "{by_number}");
    assert_eq!(by_number["data"]["id"], id);

    let other = customer(&t.state.pool).await;
    let theirs = order(&app, &admin, other, json!({})).await;
    let (_, all) = get(&app, &admin, ORDERS).await;
    assert_eq!(all["pagination"]["total"], 3);
    assert_eq!(all["data"][0]["id"], theirs["id"], "newest first");
    let (_, page) = get(&app, &admin, &format!("{ORDERS}?page=2&page_size=2")).await;
    assert_eq!(page["data"].as_array().map(Vec::len), Some(1));
    assert_eq!((page["pagination"]["total_pages"].as_i64(), page["pagination"]["page"].as_i64()), (Some(2), Some(2)));
    let (_, mine) = get(&app, &admin, &format!("{ORDERS}?customer_id={buyer}&status=pending")).await;
    assert_eq!(mine["pagination"]["total"], 2);
    let today = time::OffsetDateTime::now_utc().date();
    let (_, dated) = get(&app, &admin, &format!("{ORDERS}?date_from={today}&date_to={today}")).await;
    assert_eq!(dated["pagination"]["total"], 3, "both ends inclusive");
    let (_, future) = get(&app, &admin, &format!("{ORDERS}?date_from={}", today.next_day().expect("date"))).await;
    assert_eq!(future["pagination"]["total"], 0);
    let (_, by_customer) = get(&app, &admin, &format!("{ORDERS}/customer/{other}")).await;
    assert_eq!(by_customer["pagination"]["total"], 1);
    assert_eq!(by_customer["data"][0]["id"], theirs["id"]);
    let (_, by_status) = get(&app, &admin, &format!("{ORDERS}/status/PENDING")).await;
    assert_eq!(by_status["pagination"]["total"], 3);
    let (_, none) = get(&app, &admin, &format!("{ORDERS}/status/fulfilled")).await;
    assert_eq!(none["pagination"]["total"], 0);
    t.stop().await;
}

#[actix_web::test]
async fn order_lifecycle_moves_and_deletes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-1").await;
    let pending = order(&app, &admin, buyer, json!({})).await;
    let id = pending["id"].as_str().expect("id").to_owned();

    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/confirm"), json!({})).await,
        StatusCode::CONFLICT,
        "ORDER_EMPTY",
    );
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/process"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/fulfill"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    line(&app, &admin, &id, widget["id"].as_str().expect("id"), 1, 100).await;
    let (status, confirmed) = post(&app, &admin, &format!("{ORDERS}/{id}/confirm"), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{confirmed}");
    assert_eq!(confirmed["data"]["id"], id);
    assert_eq!(confirmed["data"]["status"], "confirmed");
    assert!(confirmed["data"]["confirmed_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/confirm"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    let edit = json!({"product_id": widget["id"], "quantity": 1, "unit_price": 1, "currency": "USD"});
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/lines"), edit).await,
        StatusCode::CONFLICT,
        "ORDER_NOT_EDITABLE",
    );
    assert_error(
        &delete(&app, &admin, &format!("{ORDERS}/{id}")).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    let (status, processing) = post(&app, &admin, &format!("{ORDERS}/{id}/process"), json!({})).await;
    assert_eq!((status, processing["data"]["status"].as_str()), (StatusCode::OK, Some("processing")));
    // No stock exists, so the warehouse never reserves: fulfilling needs a reservation.
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/fulfill"), json!({})).await,
        StatusCode::CONFLICT,
        "STOCK_NOT_RESERVED",
    );
    let (status, cancelled) =
        post(&app, &admin, &format!("{ORDERS}/{id}/cancel"), json!({"reason": "changed mind"})).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["data"]["status"], "cancelled");
    assert!(cancelled["data"]["cancelled_at"].is_string());
    assert_error(
        &post(&app, &admin, &format!("{ORDERS}/{id}/cancel"), json!({})).await,
        StatusCode::CONFLICT,
        "ORDER_ALREADY_CANCELLED",
    );
    let (status, _) = delete(&app, &admin, &format!("{ORDERS}/{id}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "cancelled orders may be deleted");
    assert_error(&get(&app, &admin, &format!("{ORDERS}/{id}")).await, StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");
    assert_error(&delete(&app, &admin, &format!("{ORDERS}/{id}")).await, StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");

    let fresh = order(&app, &admin, buyer, json!({})).await;
    let (status, _) = delete(&app, &admin, &format!("{ORDERS}/{}", fresh["id"].as_str().expect("id"))).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "pending orders may be deleted");
    let (_, listed) = get(&app, &admin, ORDERS).await;
    assert_eq!(listed["pagination"]["total"], 0, "deleted orders leave the lists");
    t.stop().await;
}

#[actix_web::test]
async fn every_order_rejection_has_its_code() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-1").await;
    let widget_id = widget["id"].as_str().expect("id").to_owned();

    let create = |body: serde_json::Value| post(&app, &admin, ORDERS, body);
    let bad = create(json!({"customer_id": buyer, "currency": "XYZ"})).await;
    assert_error(&bad, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(bad.1["error"]["details"]["currency"].is_string());
    assert_error(&create(json!({"customer_id": buyer})).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_error(
        &create(json!({"customer_id": "nope", "currency": "USD"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    let negative = create(json!({"customer_id": buyer, "currency": "USD", "tax": -1})).await;
    assert_error(&negative, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(negative.1["error"]["details"]["tax"].is_string());
    assert_error(
        &create(json!({"customer_id": Uuid::now_v7(), "currency": "USD"})).await,
        StatusCode::NOT_FOUND,
        "CUSTOMER_NOT_FOUND",
    );
    let no_company = create(json!({"customer_id": buyer, "currency": "USD", "company_id": Uuid::now_v7()})).await;
    assert_error(&no_company, StatusCode::NOT_FOUND, "NOT_FOUND");

    let id = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    let lines = format!("{ORDERS}/{id}/lines");
    let add = |quantity: i64, price: i64, currency: &str, product: &str| {
        post(
            &app,
            &admin,
            &lines,
            json!({"product_id": product, "quantity": quantity, "unit_price": price, "currency": currency}),
        )
    };
    let zero = add(0, 100, "USD", &widget_id).await;
    assert_error(&zero, StatusCode::BAD_REQUEST, "INVALID_QUANTITY");
    assert!(zero.1["error"]["details"]["quantity"].is_string());
    assert_error(&add(-2, 100, "USD", &widget_id).await, StatusCode::BAD_REQUEST, "INVALID_QUANTITY");
    assert_error(&add(1, -1, "USD", &widget_id).await, StatusCode::BAD_REQUEST, "INVALID_PRICE");
    assert_error(&add(1, 100, "EUR", &widget_id).await, StatusCode::BAD_REQUEST, "CURRENCY_MISMATCH");
    assert_error(&add(1, 100, "USD", &Uuid::now_v7().to_string()).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let overflow = add(2, i64::MAX, "USD", &widget_id).await;
    assert_error(&overflow, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    line(&app, &admin, &id, &widget_id, 1, i64::MAX).await;
    assert_error(&add(1, 1, "USD", &widget_id).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, _) =
        post(&app, &admin, &format!("/api/v1/warehouse/products/{widget_id}/discontinue"), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let discontinued = add(1, 1, "USD", &widget_id).await;
    assert_error(&discontinued, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(discontinued.1["error"]["details"]["product_id"].is_string());

    let missing_line = format!("{lines}/{}", Uuid::now_v7());
    assert_error(
        &put(&app, &admin, &missing_line, json!({"quantity": 2})).await,
        StatusCode::NOT_FOUND,
        "LINE_NOT_FOUND",
    );
    assert_error(&delete(&app, &admin, &missing_line).await, StatusCode::NOT_FOUND, "LINE_NOT_FOUND");
    let (_, current) = get(&app, &admin, &format!("{ORDERS}/{id}")).await;
    let line_id = current["data"]["lines"][0]["id"].as_str().expect("line").to_owned();
    assert_error(
        &put(&app, &admin, &format!("{lines}/{line_id}"), json!({"quantity": 0})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    assert_error(
        &put(&app, &admin, &format!("{lines}/{line_id}"), json!({"quantity": 2})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );

    let nobody = format!("{ORDERS}/{}", Uuid::now_v7());
    assert_error(&get(&app, &admin, &nobody).await, StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");
    for action in ["confirm", "process", "fulfill", "cancel"] {
        assert_error(
            &post(&app, &admin, &format!("{nobody}/{action}"), json!({})).await,
            StatusCode::NOT_FOUND,
            "ORDER_NOT_FOUND",
        );
    }
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}/number/ORD-1999-000001")).await,
        StatusCode::NOT_FOUND,
        "ORDER_NOT_FOUND",
    );
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}/number/garbage")).await,
        StatusCode::NOT_FOUND,
        "ORDER_NOT_FOUND",
    );
    assert_error(&get(&app, &admin, &format!("{ORDERS}/not-a-uuid")).await, StatusCode::BAD_REQUEST, "INVALID_UUID");
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}/status/shipped")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(&get(&app, &admin, &format!("{ORDERS}?customer_id=x")).await, StatusCode::BAD_REQUEST, "INVALID_UUID");
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}?date_from=2026-13-01")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}?date_from=2026-02-02&date_to=2026-02-01")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{ORDERS}?page_size=101")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );

    // Permissions: a staff member works with orders but may not delete them, and needs a token at all.
    let (_, user) = register_staff(&app, "buyer@example.com", "password-1").await;
    let (status, _) = get(&app, &user, ORDERS).await;
    assert_eq!(status, StatusCode::OK);
    assert_error(&delete(&app, &user, &format!("{ORDERS}/{id}")).await, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_error(&get(&app, "not-a-token", ORDERS).await, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    t.stop().await;
}

#[actix_web::test]
async fn thirty_concurrent_creates_get_thirty_distinct_numbers() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let results =
        join_all((0..30).map(|_| post(&app, &admin, ORDERS, json!({"customer_id": buyer, "currency": "USD"})))).await;
    let numbers: HashSet<String> = results
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, StatusCode::CREATED, "{body}");
            body["data"]["order_number"].as_str().expect("number").to_owned()
        })
        .collect();
    assert_eq!(numbers.len(), 30, "every number is used once");
    let year = time::OffsetDateTime::now_utc().year();
    let expected: HashSet<String> = (1..=30).map(|n| format!("ORD-{year}-{n:06}")).collect();
    assert_eq!(numbers, expected, "a gap-free per-year sequence");
    let ids: HashSet<String> = results.iter().map(|(_, body)| id_of(body)).collect();
    assert_eq!(ids.len(), 30);
    t.stop().await;
}

#[actix_web::test]
async fn the_openapi_document_covers_every_order_and_warehouse_endpoint() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, doc) = get(&app, "unused", "/api/v1/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    let paths = doc["paths"].as_object().expect("paths");
    let operations = |prefix: &str| -> usize {
        paths
            .iter()
            .filter(|(path, _)| path.starts_with(prefix))
            .map(|(_, item)| item.as_object().map_or(0, |o| o.keys().filter(|k| *k != "parameters").count()))
            .sum()
    };
    assert_eq!(operations("/api/v1/order-mgmt/"), 14, "the 14 order endpoints");
    assert_eq!(operations("/api/v1/warehouse/products"), 16);
    assert_eq!(operations("/api/v1/warehouse/inventory"), 14);
    assert_eq!(operations("/api/v1/warehouse/stock-movements"), 7);
    assert_eq!(operations("/api/v1/warehouse/locations"), 14);
    t.stop().await;
}

/// `POST /orders` with `items` creates the order and its lines in one transaction.
#[actix_web::test]
async fn an_order_created_with_items_has_its_lines_and_totals() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer_id = customer(&t.state.pool).await;
    let (widget, gadget) = (product(&app, &admin, "W-1").await, product(&app, &admin, "G-1").await);
    let body = json!({"customer_id": customer_id, "currency": "USD", "tax": 100, "discount": 50, "items": [
        {"product_id": widget["id"], "quantity": 2, "unit_price": 1000},
        {"product_id": gadget["id"], "quantity": 1, "unit_price": 500},
    ]});
    let (status, created) = post(&app, &admin, ORDERS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let order = &created["data"];
    assert_eq!(order["lines"].as_array().map(Vec::len), Some(2), "{created}");
    assert_eq!((order["subtotal"].as_i64(), order["total"].as_i64()), (Some(2500), Some(2550)));
    assert_eq!(order["lines"][0]["sku"], "W-1", "the product's SKU is copied");
    let id = order["id"].as_str().expect("id");
    let (_, read) = get(&app, &admin, &format!("{ORDERS}/{id}")).await;
    assert_eq!(read["data"]["lines"].as_array().map(Vec::len), Some(2), "stored with the order");
    assert_eq!(read["data"]["lines"], order["lines"], "read back whole, in the order they were given");

    // One bad item refuses the whole order: nothing is created.
    let before = crate::commerce_support::scalar(&t.state.pool, "SELECT count(*) AS n FROM orders").await;
    let missing = json!({"customer_id": customer_id, "currency": "USD", "items": [
        {"product_id": widget["id"], "quantity": 1, "unit_price": 1},
        {"product_id": Uuid::now_v7(), "quantity": 1, "unit_price": 1},
    ]});
    let refused = post(&app, &admin, ORDERS, missing).await;
    assert_error(&refused, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert!(refused.1["error"]["details"]["items[1].product_id"].is_string(), "{}", refused.1);
    let zero = json!({"customer_id": customer_id, "currency": "USD", "items": [{"product_id": widget["id"], "quantity": 0, "unit_price": 1}]});
    assert_error(&post(&app, &admin, ORDERS, zero).await, StatusCode::BAD_REQUEST, "INVALID_QUANTITY");
    let overflow = json!({"customer_id": customer_id, "currency": "USD", "items": [{"product_id": widget["id"], "quantity": i64::MAX, "unit_price": 2}]});
    assert_eq!(post(&app, &admin, ORDERS, overflow).await.0, StatusCode::BAD_REQUEST);
    let too_many: Vec<_> =
        (0..101).map(|_| json!({"product_id": widget["id"], "quantity": 1, "unit_price": 1})).collect();
    let crowded = json!({"customer_id": customer_id, "currency": "USD", "items": too_many});
    assert_error(&post(&app, &admin, ORDERS, crowded).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(crate::commerce_support::scalar(&t.state.pool, "SELECT count(*) AS n FROM orders").await, before);
    t.stop().await;
}
