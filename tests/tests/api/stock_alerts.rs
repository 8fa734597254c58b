//! Stock alerts through the HTTP API (docs/purchasing-and-transfers.md): `warehouse.stock_low` and
//! `warehouse.stock_replenished` raised once per crossing of the reorder point, from concurrent
//! reservations, receipts, purchase order receipts, transfers and threshold changes; and reorder
//! suggestions made into one draft purchase order per supplier.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::json;
use tally_tests::TestApp;
use uuid::Uuid;

use crate::commerce_support::{get, location, post, product, put};
use crate::purchasing_support::{events, manager, ordered_po, supplier, PURCHASE_ORDERS, TRANSFERS};

const LOW: &str = "warehouse.stock_low";
const REPLENISHED: &str = "warehouse.stock_replenished";

#[actix_web::test]
async fn each_crossing_raises_its_alert_once_under_concurrent_reservations() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let body =
        json!({"product_id": widget["id"], "location_id": kyiv["id"], "quantity_on_hand": 20, "reorder_point": 5});
    let (_, created) = post(&app, &boss, "/api/v1/warehouse/inventory", body).await;
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let pool = &t.state.pool;
    assert_eq!((events(pool, LOW, &id).await, events(pool, REPLENISHED, &id).await), (0, 0), "creating raises nothing");

    let reserve = format!("/api/v1/warehouse/inventory/{id}/reserve");
    let answers =
        join_all((0..20).map(|_| post(&app, &boss, &reserve, json!({"quantity": 1, "order_id": Uuid::now_v7()}))))
            .await;
    assert!(answers.iter().all(|(s, _)| *s == StatusCode::OK), "{answers:?}");
    assert_eq!(events(pool, LOW, &id).await, 1, "20 → 0 available crosses 5 once");

    let receive = format!("/api/v1/warehouse/inventory/{id}/receive");
    post(&app, &boss, &receive, json!({"quantity": 3})).await; // 3: still low
    assert_eq!((events(pool, LOW, &id).await, events(pool, REPLENISHED, &id).await), (1, 0));
    post(&app, &boss, &receive, json!({"quantity": 10})).await; // 13: replenished
    assert_eq!(events(pool, REPLENISHED, &id).await, 1);
    post(&app, &boss, &receive, json!({"quantity": 10})).await; // 23: still fine
    assert_eq!(events(pool, REPLENISHED, &id).await, 1);

    // A new reorder point is a crossing too.
    let (status, _) =
        put(&app, &boss, &format!("/api/v1/warehouse/inventory/{id}"), json!({"reorder_point": 30})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(events(pool, LOW, &id).await, 2);

    // A transfer out and a purchase order's receipt cross it back and forth.
    let lviv = location(&app, &boss, "LVIV").await;
    put(&app, &boss, &format!("/api/v1/warehouse/inventory/{id}"), json!({"reorder_point": 2})).await;
    assert_eq!(events(pool, REPLENISHED, &id).await, 2);
    let body = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"], "lines": [{"product_id": widget["id"], "quantity": 22}]});
    let (_, transfer) = post(&app, &boss, TRANSFERS, body).await;
    let (status, shipped) =
        post(&app, &boss, &format!("{TRANSFERS}/{}/ship", transfer["data"]["id"].as_str().unwrap_or("")), json!({}))
            .await;
    assert_eq!(status, StatusCode::OK, "{shipped}");
    assert_eq!(events(pool, LOW, &id).await, 3, "23 → 1 available");
    let acme = supplier(&app, &boss, "Acme").await;
    let po = ordered_po(&app, &boss, &acme, &kyiv, &[(&widget, 5, 100)]).await;
    let line = po["lines"][0]["id"].as_str().expect("line");
    let receipt = json!({"lines": [{"line_id": line, "quantity": 5}]});
    let (status, _) =
        post(&app, &boss, &format!("{PURCHASE_ORDERS}/{}/receive", po["id"].as_str().unwrap_or("")), receipt).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(events(pool, REPLENISHED, &id).await, 3, "1 → 6 available");
    t.stop().await;
}

#[actix_web::test]
async fn reorder_suggestions_become_one_draft_purchase_order_per_supplier() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let (acme, bolt) = (supplier(&app, &boss, "Acme").await, supplier(&app, &boss, "Bolt").await);
    let supplied = |sku: &'static str, supplier: &serde_json::Value| json!({"sku": sku, "name": format!("Product {sku}"), "supplier_id": supplier["id"]});
    let mut made = Vec::new();
    for body in [supplied("A-1", &acme), supplied("B-1", &acme), supplied("C-1", &bolt)] {
        let (status, created) = post(&app, &boss, "/api/v1/warehouse/products", body).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        made.push(created["data"].clone());
    }
    let (a, b, c) = (made[0].clone(), made[1].clone(), made[2].clone());
    assert_eq!(c["supplier_id"], bolt["id"], "a product names its preferred supplier");
    let orphan = product(&app, &boss, "O-1").await;
    assert!(orphan["supplier_id"].is_null());
    for p in [&a, &b, &c, &orphan] {
        let body = json!({"product_id": p["id"], "location_id": kyiv["id"], "quantity_on_hand": 2, "reorder_point": 5, "max_stock": 20});
        let (status, _) = post(&app, &boss, "/api/v1/warehouse/inventory", body).await;
        assert_eq!(status, StatusCode::CREATED);
    }
    // 8 of C already on their way: C needs 20 − 2 − 8 = 10.
    ordered_po(&app, &boss, &bolt, &kyiv, &[(&c, 8, 100)]).await;
    let (status, suggestions) = get(
        &app,
        &boss,
        &format!("/api/v1/warehouse/reorder-suggestions?location_id={}", kyiv["id"].as_str().unwrap_or("")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{suggestions}");
    let rows = suggestions["data"].as_array().expect("list");
    assert_eq!(rows.len(), 4, "{suggestions}");
    let c_row = rows.iter().find(|r| r["product_id"] == c["id"]).expect("C");
    assert_eq!((c_row["quantity_incoming"].as_i64(), c_row["suggested_quantity"].as_i64()), (Some(8), Some(10)));

    let (status, drafted) =
        post(&app, &boss, &format!("{PURCHASE_ORDERS}/from-suggestions"), json!({"location_id": kyiv["id"]})).await;
    assert_eq!(status, StatusCode::CREATED, "{drafted}");
    let orders = drafted["data"]["purchase_orders"].as_array().expect("orders");
    assert_eq!(orders.len(), 2, "one per supplier: {drafted}");
    let for_acme = orders.iter().find(|o| o["supplier_id"] == acme["id"]).expect("Acme's");
    assert_eq!((for_acme["status"].as_str(), for_acme["lines"].as_array().map(Vec::len)), (Some("draft"), Some(2)));
    assert_eq!(drafted["data"]["skipped"][0]["product_id"], orphan["id"]);
    let _ = suppliers_only(&app, &boss, &bolt).await;
    t.stop().await;
}

/// `supplier_id` narrows the suggestions to that supplier's products.
async fn suppliers_only<S, B>(app: &S, token: &str, bolt: &serde_json::Value) -> usize
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let (_, only) = get(
        app,
        token,
        &format!("/api/v1/warehouse/reorder-suggestions?supplier_id={}", bolt["id"].as_str().unwrap_or("")),
    )
    .await;
    let rows = only["data"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(rows, 1, "{only}");
    rows
}

#[actix_web::test]
async fn the_order_flow_raises_the_alert_once_from_its_batched_reservations() {
    use crate::commerce_support::{customer, line, order, wait_for};
    const ORDERS: &str = "/api/v1/order-mgmt/orders";
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let admin = tally_tests::login(&app, tally_tests::ADMIN_EMAIL, tally_tests::ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let body =
        json!({"product_id": widget["id"], "location_id": kyiv["id"], "quantity_on_hand": 12, "reorder_point": 4});
    let (_, created) = post(&app, &boss, "/api/v1/warehouse/inventory", body).await;
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let mut orders = Vec::new();
    for _ in 0..6 {
        let made = order(&app, &admin, buyer, json!({})).await;
        let order_id = made["id"].as_str().expect("id").to_owned();
        line(&app, &admin, &order_id, widget["id"].as_str().expect("id"), 2, 100).await;
        orders.push(order_id);
    }
    let uris: Vec<String> = orders.iter().map(|o| format!("{ORDERS}/{o}/confirm")).collect();
    let confirmations = join_all(uris.iter().map(|uri| post(&app, &admin, uri, json!({})))).await;
    assert!(confirmations.iter().all(|(status, _)| *status == StatusCode::OK), "{confirmations:?}");
    for o in &orders {
        wait_for(&app, &admin, &format!("{ORDERS}/{o}"), "a reservation", |b| {
            b["data"]["reservation_status"] == "reserved"
        })
        .await;
    }
    assert_eq!(events(&t.state.pool, LOW, &id).await, 1, "12 → 0 available crosses 4 once");
    assert_eq!(events(&t.state.pool, REPLENISHED, &id).await, 0);
    t.stop().await;
}

#[actix_web::test]
async fn purchase_order_writes_honour_if_match() {
    use actix_web::test::TestRequest;
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let acme = supplier(&app, &boss, "Acme").await;
    let body = json!({"supplier_id": acme["id"], "location_id": kyiv["id"], "currency": "EUR",
                      "lines": [{"product_id": widget["id"], "quantity": 1, "unit_cost": 5}]});
    let request = TestRequest::post().uri(PURCHASE_ORDERS).insert_header(tally_tests::bearer(&boss)).set_json(body);
    let (status, headers, created) = tally_tests::call(&app, request).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let tag = headers.get("etag").and_then(|v| v.to_str().ok()).expect("an ETag").to_owned();
    let submit = format!("{PURCHASE_ORDERS}/{}/submit", created["data"]["id"].as_str().unwrap_or(""));
    let stale = TestRequest::post()
        .uri(&submit)
        .insert_header(tally_tests::bearer(&boss))
        .insert_header(("If-Match", "\"00000000000000000000000000000000-9\""));
    let (status, _, body) = tally_tests::call(&app, stale).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::PRECONDITION_FAILED, Some("PRECONDITION_FAILED"))
    );
    let current =
        TestRequest::post().uri(&submit).insert_header(tally_tests::bearer(&boss)).insert_header(("If-Match", tag));
    let (status, headers, body) = tally_tests::call(&app, current).await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("ordered")), "{body}");
    assert!(headers.get("etag").is_some());
    t.stop().await;
}

/// Reorder suggestions are a paginated list (the standard envelope), and a supplier with more
/// suggestions than a purchase order may carry gets several drafts of at most 200 lines.
#[actix_web::test]
async fn reorder_suggestions_are_paginated_and_drafts_are_capped() {
    use crate::purchasing_support::exec;
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let acme = supplier(&app, &boss, "Acme").await;
    let (kyiv_id, acme_id) = (kyiv["id"].as_str().expect("id"), acme["id"].as_str().expect("id"));
    // 201 low records of Acme's products, made by SQL (201 API calls would only be slow).
    exec(
        &t.state.pool,
        &format!(
            "INSERT INTO products (id, sku, name, supplier_id) \
             SELECT gen_random_uuid(), 'BULK-' || lpad(n::text, 3, '0'), 'Bulk ' || n, '{acme_id}' \
             FROM generate_series(1, 201) AS n"
        ),
    )
    .await;
    exec(
        &t.state.pool,
        &format!(
            "INSERT INTO inventory (id, product_id, location_id, reorder_point) \
             SELECT gen_random_uuid(), id, '{kyiv_id}', 5 FROM products WHERE sku LIKE 'BULK-%'"
        ),
    )
    .await;
    let uri =
        |page: u32| format!("/api/v1/warehouse/reorder-suggestions?location_id={kyiv_id}&page={page}&page_size=50");
    let (status, first) = get(&app, &boss, &uri(1)).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let pagination = &first["pagination"];
    assert_eq!((pagination["total"].as_i64(), pagination["total_pages"].as_i64()), (Some(201), Some(5)), "{first}");
    assert_eq!(first["data"].as_array().map(Vec::len), Some(50));
    assert_eq!(first["data"][0]["sku"], "BULK-001", "by SKU");
    assert_eq!(first["data"][0]["suggested_quantity"], 10, "twice the reorder point");
    let (_, last) = get(&app, &boss, &uri(5)).await;
    assert_eq!(last["data"].as_array().map(Vec::len), Some(1), "{last}");
    assert_eq!(last["data"][0]["sku"], "BULK-201");

    let (status, drafted) =
        post(&app, &boss, &format!("{PURCHASE_ORDERS}/from-suggestions"), json!({"location_id": kyiv["id"]})).await;
    assert_eq!(status, StatusCode::CREATED, "{drafted}");
    let mut sizes: Vec<usize> = drafted["data"]["purchase_orders"]
        .as_array()
        .expect("orders")
        .iter()
        .map(|po| po["lines"].as_array().map_or(0, Vec::len))
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [1, 200], "at most 200 lines a draft");
    t.stop().await;
}
