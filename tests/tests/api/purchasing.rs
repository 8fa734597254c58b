//! Suppliers and purchase orders through the HTTP API (docs/purchasing-and-transfers.md): the
//! purchase-to-stock journey with partial receipts, closing short and cancelling, over-receipt,
//! incoming stock, races on one purchase order, unique numbers under many creators, permissions
//! and bad input.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::json;
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::commerce_support::{
    assert_error, assert_ledger_balances, delete, get, location, post, product, put, scalar, stock,
};
use crate::purchasing_support::{draft_po, events, manager, ordered_po, supplier, PURCHASE_ORDERS, SUPPLIERS};

#[actix_web::test]
async fn a_purchase_order_brings_stock_in_by_partial_receipts_and_closes_short() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let (widget, gadget) = (product(&app, &boss, "W-1").await, product(&app, &boss, "G-1").await);
    let kyiv = location(&app, &boss, "KYIV").await;
    stock(&app, &boss, &gadget, &kyiv, 2).await;
    let acme = supplier(&app, &boss, "Acme").await;

    let po = draft_po(&app, &boss, &acme, &kyiv, &[(&widget, 10, 250)]).await;
    assert_eq!(po["status"], "draft");
    assert!(po["po_number"].as_str().is_some_and(|n| n.starts_with("PO-") && n.len() == 14), "{po}");
    assert_eq!((po["subtotal"].as_i64(), po["lines"][0]["sku"].as_str()), (Some(2_500), Some("W-1")));
    let id = po["id"].as_str().expect("id").to_owned();
    let uri = |tail: &str| format!("{PURCHASE_ORDERS}/{id}{tail}");

    // Lines change in draft only.
    let (status, added) =
        post(&app, &boss, &uri("/lines"), json!({"product_id": gadget["id"], "quantity": 4, "unit_cost": 1000})).await;
    assert_eq!(status, StatusCode::OK, "{added}");
    assert_eq!(added["data"]["subtotal"], 6_500);
    let gadget_line = added["data"]["lines"][1]["id"].as_str().expect("line").to_owned();
    let (status, changed) = put(&app, &boss, &uri(&format!("/lines/{gadget_line}")), json!({"quantity": 5})).await;
    assert_eq!((status, changed["data"]["subtotal"].as_i64()), (StatusCode::OK, Some(7_500)), "{changed}");

    let (status, submitted) = post(&app, &boss, &uri("/submit"), json!({})).await;
    assert_eq!((status, submitted["data"]["status"].as_str()), (StatusCode::OK, Some("ordered")), "{submitted}");
    assert!(submitted["data"]["submitted_at"].as_str().is_some_and(|s| s.ends_with('Z')));
    assert_error(
        &post(&app, &boss, &uri("/lines"), json!({"product_id": gadget["id"], "quantity": 1, "unit_cost": 1})).await,
        StatusCode::CONFLICT,
        "PO_NOT_EDITABLE",
    );
    let availability =
        |p: &serde_json::Value| format!("/api/v1/warehouse/products/{}/availability", p["id"].as_str().unwrap_or(""));
    let (_, widget_incoming) = get(&app, &boss, &availability(&widget)).await;
    assert_eq!(widget_incoming["data"]["quantity_incoming"], 10, "{widget_incoming}");
    let gadget_records = format!("/api/v1/warehouse/inventory?product_id={}", gadget["id"].as_str().unwrap_or(""));
    let (_, records) = get(&app, &boss, &gadget_records).await;
    assert_eq!(records["data"][0]["quantity_incoming"], 5, "the record's own incoming: {records}");

    // A partial receipt: one Receipt movement per line, the widget's record made at the location.
    let widget_line = submitted["data"]["lines"][0]["id"].as_str().expect("line").to_owned();
    let receipt = json!({"lines": [{"line_id": widget_line, "quantity": 6}, {"line_id": gadget_line, "quantity": 5}],
                         "reason": "first pallet"});
    let (status, received) = post(&app, &boss, &uri("/receive"), receipt).await;
    assert_eq!(status, StatusCode::OK, "{received}");
    assert_eq!(received["data"]["status"], "partially_received");
    assert_eq!(received["data"]["lines"][0]["quantity_received"], 6);
    let (_, movements) = get(&app, &boss, &format!("/api/v1/warehouse/stock-movements?reference_id={id}")).await;
    let items = movements["data"].as_array().expect("list");
    assert_eq!(items.len(), 2, "{movements}");
    assert!(items
        .iter()
        .all(|m| m["type"] == "Receipt" && m["reference_type"] == "purchase_order" && m["currency"] == "EUR"));
    let (_, widget_now) = get(&app, &boss, &availability(&widget)).await;
    assert_eq!(
        (widget_now["data"]["quantity_on_hand"].as_i64(), widget_now["data"]["quantity_incoming"].as_i64()),
        (Some(6), Some(4))
    );
    let (_, gadget_now) = get(&app, &boss, &availability(&gadget)).await;
    assert_eq!(gadget_now["data"]["quantity_on_hand"], 7);
    let record_id = records["data"][0]["id"].as_str().expect("id");
    let (_, record) = get(&app, &boss, &format!("/api/v1/warehouse/inventory/{record_id}")).await;
    assert_eq!(
        (record["data"]["quantity_on_hand"].as_i64(), record["data"]["quantity_incoming"].as_i64()),
        (Some(7), Some(0))
    );

    // More than is outstanding receives nothing.
    let over = json!({"lines": [{"line_id": widget_line, "quantity": 1}, {"line_id": gadget_line, "quantity": 1}]});
    assert_error(&post(&app, &boss, &uri("/receive"), over).await, StatusCode::CONFLICT, "OVER_RECEIPT");
    let (_, unchanged) = get(&app, &boss, &uri("")).await;
    assert_eq!(unchanged["data"]["lines"][0]["quantity_received"], 6, "nothing received");
    assert_error(
        &post(&app, &boss, &uri("/cancel"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );

    // Close short: the rest is no longer expected.
    let (status, closed) = post(&app, &boss, &uri("/close"), json!({})).await;
    assert_eq!((status, closed["data"]["status"].as_str()), (StatusCode::OK, Some("closed")), "{closed}");
    let (_, after_close) = get(&app, &boss, &availability(&widget)).await;
    assert_eq!(after_close["data"]["quantity_incoming"], 0);
    let number = closed["data"]["po_number"].as_str().expect("number");
    let (status, by_number) = get(&app, &boss, &format!("{PURCHASE_ORDERS}/number/{number}")).await;
    assert_eq!((status, by_number["data"]["id"].as_str()), (StatusCode::OK, Some(id.as_str())));
    assert_error(
        &get(&app, &boss, &format!("{PURCHASE_ORDERS}/number/nope")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );

    for (name, count) in [("purchase_order.submitted", 1), ("purchase_order.received", 1), ("purchase_order.closed", 1)]
    {
        assert_eq!(events(&t.state.pool, name, &id).await, count, "{name}");
    }
    let (_, listed) =
        get(&app, &boss, &format!("{PURCHASE_ORDERS}?status=closed&supplier_id={}", acme["id"].as_str().unwrap_or("")))
            .await;
    assert_eq!(listed["pagination"]["total"], 1, "{listed}");
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn receiving_everything_completes_and_cancel_and_submit_follow_the_lifecycle() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let acme = supplier(&app, &boss, "Acme").await;

    let empty = draft_po(&app, &boss, &acme, &kyiv, &[]).await;
    let empty_id = empty["id"].as_str().expect("id");
    assert_error(
        &post(&app, &boss, &format!("{PURCHASE_ORDERS}/{empty_id}/submit"), json!({})).await,
        StatusCode::CONFLICT,
        "PO_EMPTY",
    );
    assert_error(
        &delete(&app, &boss, &format!("{SUPPLIERS}/{}", acme["id"].as_str().unwrap_or(""))).await,
        StatusCode::CONFLICT,
        "SUPPLIER_HAS_OPEN_ORDERS",
    );
    let (status, cancelled) = post(&app, &boss, &format!("{PURCHASE_ORDERS}/{empty_id}/cancel"), json!({})).await;
    assert_eq!((status, cancelled["data"]["status"].as_str()), (StatusCode::OK, Some("cancelled")));

    let po = ordered_po(&app, &boss, &acme, &kyiv, &[(&widget, 3, 100)]).await;
    let id = po["id"].as_str().expect("id");
    let line = po["lines"][0]["id"].as_str().expect("line");
    let (status, done) = post(
        &app,
        &boss,
        &format!("{PURCHASE_ORDERS}/{id}/receive"),
        json!({"lines": [{"line_id": line, "quantity": 3}]}),
    )
    .await;
    assert_eq!((status, done["data"]["status"].as_str()), (StatusCode::OK, Some("received")), "{done}");
    assert!(done["data"]["received_at"].as_str().is_some());
    assert_error(
        &post(&app, &boss, &format!("{PURCHASE_ORDERS}/{id}/close"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    let (status, _) = delete(&app, &boss, &format!("{SUPPLIERS}/{}", acme["id"].as_str().unwrap_or(""))).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "nothing open any more");
    t.stop().await;
}

#[actix_web::test]
async fn concurrent_receipts_on_one_purchase_order_never_receive_more_than_ordered() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let acme = supplier(&app, &boss, "Acme").await;
    let po = ordered_po(&app, &boss, &acme, &kyiv, &[(&widget, 10, 100)]).await;
    let id = po["id"].as_str().expect("id");
    let line = po["lines"][0]["id"].as_str().expect("line");
    let uri = format!("{PURCHASE_ORDERS}/{id}/receive");
    let answers =
        join_all((0..20).map(|_| post(&app, &boss, &uri, json!({"lines": [{"line_id": line, "quantity": 3}]})))).await;
    let ok = answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    assert_eq!(ok, 3, "3 × 3 fit in 10");
    assert!(
        answers
            .iter()
            .filter(|(s, _)| *s != StatusCode::OK)
            .all(|(s, b)| *s == StatusCode::CONFLICT && b["error"]["code"] == "OVER_RECEIPT"),
        "{answers:?}"
    );
    let (_, stored) = get(&app, &boss, &format!("{PURCHASE_ORDERS}/{id}")).await;
    assert_eq!(stored["data"]["lines"][0]["quantity_received"], 9);
    let (_, availability) =
        get(&app, &boss, &format!("/api/v1/warehouse/products/{}/availability", widget["id"].as_str().unwrap_or("")))
            .await;
    assert_eq!(
        (availability["data"]["quantity_on_hand"].as_i64(), availability["data"]["quantity_incoming"].as_i64()),
        (Some(9), Some(1))
    );
    assert_eq!(events(&t.state.pool, "purchase_order.received", id).await, 3);
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

#[actix_web::test]
async fn many_concurrent_creators_get_unique_numbers() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let acme = supplier(&app, &boss, "Acme").await;
    let body = json!({"supplier_id": acme["id"], "location_id": kyiv["id"], "currency": "EUR"});
    let answers = join_all((0..30).map(|_| post(&app, &boss, PURCHASE_ORDERS, body.clone()))).await;
    let mut numbers: Vec<String> = answers
        .iter()
        .map(|(status, b)| {
            assert_eq!(*status, StatusCode::CREATED, "{b}");
            b["data"]["po_number"].as_str().expect("number").to_owned()
        })
        .collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len(), 30, "every number is unique");
    assert!(numbers.last().is_some_and(|n| n.ends_with("000030")), "gap-free: {numbers:?}");
    t.stop().await;
}

#[actix_web::test]
async fn suppliers_are_read_by_staff_written_by_managers_and_checked() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let (_, clerk) = register_staff(&app, "clerk@example.com", "password-1").await;
    let acme = supplier(&app, &boss, "Acme").await;
    let id = acme["id"].as_str().expect("id");
    assert_eq!((acme["is_active"].as_bool(), acme["lead_time_days"].as_i64()), (Some(true), Some(7)));

    let (status, listed) = get(&app, &clerk, &format!("{SUPPLIERS}?search=ACM&is_active=true")).await;
    assert_eq!((status, listed["pagination"]["total"].as_i64()), (StatusCode::OK, Some(1)), "{listed}");
    assert_error(&post(&app, &clerk, SUPPLIERS, json!({"name": "Nope"})).await, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_error(&post(&app, &clerk, PURCHASE_ORDERS, json!({})).await, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_error(
        &post(&app, &clerk, "/api/v1/warehouse/transfers", json!({})).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    );
    let (status, _) = get(&app, &clerk, PURCHASE_ORDERS).await;
    assert_eq!(status, StatusCode::OK);

    let (status, changed) = put(
        &app,
        &boss,
        &format!("{SUPPLIERS}/{id}"),
        json!({"phone": "+380 44 123 4567", "notes": null, "lead_time_days": 3}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(
        (changed["data"]["phone"].as_str(), changed["data"]["lead_time_days"].as_i64()),
        (Some("+380441234567"), Some(3))
    );
    assert_error(
        &put(&app, &boss, &format!("{SUPPLIERS}/{id}"), json!({"phone": "12345"})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_PHONE",
    );
    assert_error(
        &post(&app, &boss, SUPPLIERS, json!({"name": "X", "email": "nope"})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_EMAIL",
    );
    assert_error(
        &post(&app, &boss, SUPPLIERS, json!({"name": "X", "lead_time_days": 400})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &post(&app, &boss, SUPPLIERS, json!({"name": "X", "currency": "XXX"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(&post(&app, &boss, SUPPLIERS, json!({})).await, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_error(&get(&app, &boss, &format!("{SUPPLIERS}/not-a-uuid")).await, StatusCode::BAD_REQUEST, "INVALID_UUID");

    // Bad purchase orders.
    let kyiv = location(&app, &boss, "KYIV").await;
    let widget = product(&app, &boss, "W-1").await;
    let po = |lines: serde_json::Value| json!({"supplier_id": id, "location_id": kyiv["id"], "currency": "EUR", "lines": lines});
    assert_error(
        &post(&app, &boss, PURCHASE_ORDERS, po(json!([{"product_id": widget["id"], "quantity": 0, "unit_cost": 1}])))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUANTITY",
    );
    assert_error(
        &post(
            &app,
            &boss,
            PURCHASE_ORDERS,
            po(json!([{"product_id": uuid::Uuid::now_v7(), "quantity": 1, "unit_cost": 1}])),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &post(
            &app,
            &boss,
            PURCHASE_ORDERS,
            json!({"supplier_id": uuid::Uuid::now_v7(), "location_id": kyiv["id"], "currency": "EUR"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &get(&app, &boss, &format!("{PURCHASE_ORDERS}?status=shipped")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &boss, &format!("{PURCHASE_ORDERS}/{}", uuid::Uuid::now_v7())).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    let (status, _) = delete(&app, &boss, &format!("{SUPPLIERS}/{id}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_error(&get(&app, &boss, &format!("{SUPPLIERS}/{id}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let _ = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    t.stop().await;
}

/// An inventory record's tag covers its incoming stock: a purchase order submitted for it changes
/// no row of the record, yet a client holding the old tag is answered anew, never 304 with a stale
/// `quantity_incoming`; `If-Match` with the tag just read still guards writes to the record.
#[actix_web::test]
async fn an_inventory_records_tag_changes_with_its_incoming_stock() {
    use actix_web::test::TestRequest;
    use tally_tests::{bearer, call};
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let record = stock(&app, &boss, &widget, &kyiv, 2).await;
    let uri = format!("/api/v1/warehouse/inventory/{}", record["id"].as_str().expect("id"));
    let read = |tag: Option<String>| {
        let request = TestRequest::get().uri(&uri).insert_header(bearer(&boss));
        call(
            &app,
            match tag {
                Some(tag) => request.insert_header(("If-None-Match", tag)),
                None => request,
            },
        )
    };
    let (_, headers, first) = read(None).await;
    let first_tag = headers.get("etag").and_then(|v| v.to_str().ok()).expect("a tag").to_owned();
    assert_eq!(first["data"]["quantity_incoming"], 0);

    let acme = supplier(&app, &boss, "Acme").await;
    ordered_po(&app, &boss, &acme, &kyiv, &[(&widget, 10, 100)]).await;
    let (status, headers, fresh) = read(Some(first_tag.clone())).await;
    assert_eq!(status, StatusCode::OK, "the incoming stock changed: not 304");
    assert_eq!(fresh["data"]["quantity_incoming"], 10, "{fresh}");
    let tag = headers.get("etag").and_then(|v| v.to_str().ok()).expect("a tag").to_owned();
    assert_ne!(tag, first_tag);
    let (status, _, _) = read(Some(tag.clone())).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED, "nothing changed since");

    // Writes take the tag just read; the answer carries the record's new tag, incoming included.
    let write = |tag: &str, body: serde_json::Value| {
        call(
            &app,
            TestRequest::put().uri(&uri).insert_header(bearer(&boss)).insert_header(("If-Match", tag)).set_json(body),
        )
    };
    let (status, headers, updated) = write(&tag, json!({"reorder_point": 3})).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["data"]["quantity_incoming"], 10);
    let written = headers.get("etag").and_then(|v| v.to_str().ok()).expect("a tag").to_owned();
    let (status, _, _) = read(Some(written.clone())).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED, "the write's tag is the read's");
    let (status, _, stale) = write(&tag, json!({"reorder_point": 4})).await;
    assert_eq!(
        (status, stale["error"]["code"].as_str()),
        (StatusCode::PRECONDITION_FAILED, Some("PRECONDITION_FAILED"))
    );
    let adjust = TestRequest::post()
        .uri(&format!("{uri}/adjust"))
        .insert_header(bearer(&boss))
        .insert_header(("If-Match", written.as_str()))
        .set_json(json!({"quantity_delta": 1, "reason": "count"}));
    let (status, _, adjusted) = call(&app, adjust).await;
    assert_eq!(status, StatusCode::OK, "{adjusted}");
    assert_eq!(adjusted["data"]["inventory"]["quantity_incoming"], 10);
    t.stop().await;
}

/// A record deleted while a receipt waited for it is a stale read: the receipt is decided again and
/// its stock lands in a new record at the location, never a 404.
#[actix_web::test]
async fn a_record_deleted_during_a_receipt_is_made_again() {
    use crate::purchasing_support::deleted_while_waiting;
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let widget = product(&app, &boss, "W-1").await;
    let kyiv = location(&app, &boss, "KYIV").await;
    let record = stock(&app, &boss, &widget, &kyiv, 2).await;
    let acme = supplier(&app, &boss, "Acme").await;
    let po = ordered_po(&app, &boss, &acme, &kyiv, &[(&widget, 5, 100)]).await;
    let line = po["lines"][0]["id"].as_str().expect("line");
    let uri = format!("{PURCHASE_ORDERS}/{}/receive", po["id"].as_str().expect("id"));
    let receipt = post(&app, &boss, &uri, json!({"lines": [{"line_id": line, "quantity": 5}]}));
    let (status, received) = deleted_while_waiting(&t.state.pool, record["id"].as_str().expect("id"), receipt).await;
    assert_eq!(status, StatusCode::OK, "{received}");
    assert_eq!(received["data"]["status"], "received");
    let (_, records) =
        get(&app, &boss, &format!("/api/v1/warehouse/inventory?product_id={}", widget["id"].as_str().unwrap_or("")))
            .await;
    let items = records["data"].as_array().expect("list");
    assert_eq!(items.len(), 1, "{records}");
    assert_ne!(items[0]["id"], record["id"], "a new record");
    assert_eq!(items[0]["quantity_on_hand"], 5);
    assert_ledger_balances(&t.state.pool).await;
    t.stop().await;
}

/// Six digits a year: a creation past 999 999 is refused with its own code (nothing created, no
/// 500), the last number is still given.
#[actix_web::test]
async fn document_numbers_past_the_years_last_are_refused() {
    use crate::purchasing_support::{exec, TRANSFERS};
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let (kyiv, lviv) = (location(&app, &boss, "KYIV").await, location(&app, &boss, "LVIV").await);
    let widget = product(&app, &boss, "W-1").await;
    stock(&app, &boss, &widget, &kyiv, 5).await;
    let acme = supplier(&app, &boss, "Acme").await;
    let counter = |kind: &str, last: i64| {
        format!(
            "INSERT INTO document_counters (kind, year, last) \
             VALUES ('{kind}', extract(year FROM now() AT TIME ZONE 'UTC')::int, {last}) \
             ON CONFLICT (kind, year) DO UPDATE SET last = EXCLUDED.last"
        )
    };
    let po = json!({"supplier_id": acme["id"], "location_id": kyiv["id"], "currency": "EUR"});
    exec(&t.state.pool, &counter("purchase_order", 999_998)).await;
    let (status, last) = post(&app, &boss, PURCHASE_ORDERS, po.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{last}");
    assert!(last["data"]["po_number"].as_str().is_some_and(|n| n.ends_with("-999999")), "{last}");
    assert_error(&post(&app, &boss, PURCHASE_ORDERS, po).await, StatusCode::CONFLICT, "DOCUMENT_NUMBERS_EXHAUSTED");
    assert_eq!(scalar(&t.state.pool, "SELECT count(*) AS n FROM purchase_orders").await, 1);

    exec(&t.state.pool, &counter("transfer", 999_999)).await;
    let transfer = json!({"from_location_id": kyiv["id"], "to_location_id": lviv["id"],
                          "lines": [{"product_id": widget["id"], "quantity": 1}]});
    assert_error(&post(&app, &boss, TRANSFERS, transfer).await, StatusCode::CONFLICT, "DOCUMENT_NUMBERS_EXHAUSTED");
    t.stop().await;
}

/// A product's supplier must be a live one when it is set: a deleted supplier is refused as a
/// missing one (404), at creation and by `PUT`; a product keeping a supplier deleted since may still
/// be edited.
#[actix_web::test]
async fn a_deleted_supplier_cannot_be_set_on_a_product() {
    const PRODUCTS: &str = "/api/v1/warehouse/products";
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let boss = manager(&app, "boss@example.com").await;
    let (gone, kept) = (supplier(&app, &boss, "Gone").await, supplier(&app, &boss, "Kept").await);
    let product_body = |sku: &str, supplier: &serde_json::Value| json!({"sku": sku, "name": format!("Product {sku}"), "supplier_id": supplier["id"]});
    let (status, named) = post(&app, &boss, PRODUCTS, product_body("K-1", &kept)).await;
    assert_eq!(status, StatusCode::CREATED, "{named}");
    let (status, _) = delete(&app, &boss, &format!("{SUPPLIERS}/{}", gone["id"].as_str().unwrap_or(""))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    assert_error(&post(&app, &boss, PRODUCTS, product_body("G-1", &gone)).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let uri = format!("{PRODUCTS}/{}", named["data"]["id"].as_str().unwrap_or(""));
    assert_error(&put(&app, &boss, &uri, product_body("K-1", &gone)).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, unchanged) = get(&app, &boss, &uri).await;
    assert_eq!(unchanged["data"]["supplier_id"], kept["id"]);

    // Kept's deletion after the product named it: an edit keeping it is no new choice.
    let (status, _) = delete(&app, &boss, &format!("{SUPPLIERS}/{}", kept["id"].as_str().unwrap_or(""))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, edited) =
        put(&app, &boss, &uri, json!({"sku": "K-1", "name": "Renamed", "supplier_id": kept["id"]})).await;
    assert_eq!((status, edited["data"]["name"].as_str()), (StatusCode::OK, Some("Renamed")), "{edited}");
    t.stop().await;
}
