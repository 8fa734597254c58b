//! Each export takes its list's filters and sort: for several queries, the export holds exactly the
//! records of every page of the list, in the list's order; a bad filter is answered as the list
//! answers it; a parameter the list ignores, the export ignores too.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::init_service;
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{call, login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use super::{admins_customer, download, EXPORTS};
use crate::commerce_support as commerce;
use crate::crm_support::{admin_id, code, days_from_today, expect, get, id_of, new_customer, post, put, today, BASE};

const ORDERS: &str = "/api/v1/order-mgmt/orders";
const INVENTORY: &str = "/api/v1/warehouse/inventory";
const MOVEMENTS: &str = "/api/v1/warehouse/stock-movements";

/// The ids of every record `list?query` shows, page after page (three a page, so there are several).
async fn listed_ids<S, B>(app: &S, token: &str, list: &str, query: &str) -> Vec<String>
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let mut ids = Vec::new();
    for page in 1.. {
        let (status, _, body) = call(app, get(&format!("{list}?{query}&page={page}&page_size=3"), token)).await;
        assert_eq!(status.as_u16(), 200, "{list}?{query}: {body}");
        let items = body["data"].as_array().expect("a page");
        ids.extend(items.iter().map(|item| item["id"].as_str().expect("an id").to_owned()));
        if i64::from(page) >= body["pagination"]["total_pages"].as_i64().expect("total_pages") {
            break;
        }
    }
    ids
}

/// Asserts that the JSONL export of `resource?query` is the records of `list?query`'s pages, in
/// order, and returns how many there are.
async fn export_matches_list<S, B>(app: &S, token: &str, resource: &str, list: &str, query: &str) -> usize
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, _, jsonl) = download(app, get(&format!("{EXPORTS}/{resource}?format=jsonl&{query}"), token)).await;
    assert_eq!(status, 200, "{resource}?{query}: {jsonl}");
    let exported: Vec<String> = jsonl
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("a JSON line");
            record["id"].as_str().expect("an id").to_owned()
        })
        .collect();
    assert_eq!(exported, listed_ids(app, token, list, query).await, "{resource}?{query}");
    exported.len()
}

/// Asserts that `resource?query` is refused with `status` and `error_code`, as `list?query` is,
/// with the same error (message and details).
async fn refused_like_the_list<S, B>(
    app: &S,
    token: &str,
    resource: &str,
    list: &str,
    query: &str,
    status: u16,
    error_code: &str,
) where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (list_status, _, listed) = call(app, get(&format!("{list}?{query}"), token)).await;
    assert_eq!((list_status.as_u16(), code(&listed)), (status, error_code), "{list}?{query}: {listed}");
    let (export_status, _, exported) = call(app, get(&format!("{EXPORTS}/{resource}?{query}"), token)).await;
    assert_eq!(export_status, list_status, "{resource}?{query}: {exported}");
    assert_eq!(exported["error"], listed["error"], "{resource}?{query}");
}

#[actix_web::test]
async fn deals_export_with_the_deal_lists_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let (other_rep, _) = register_staff(&app, "rep@example.com", "password-1").await;
    let first = id_of(&new_customer(&app, &admin, json!({"name": "First", "email": "first@example.com"})).await);
    let second = id_of(&new_customer(&app, &admin, json!({"name": "Second", "email": "second@example.com"})).await);
    let mut deals = Vec::new();
    for (customer, assigned_to, qualified) in [
        (first, rep, false),
        (first, other_rep, true),
        (second, rep, true),
        (second, other_rep, false),
        (first, rep, true),
    ] {
        let body = json!({"customer_id": customer, "assigned_to": assigned_to, "name": "Deal", "value": 1000,
                          "expected_close_date": days_from_today(30)});
        let deal = id_of(&expect(&app, 201, post(&format!("{BASE}/deals"), &admin, body)).await);
        if qualified {
            expect(&app, 200, put(&format!("{BASE}/deals/{deal}/stage"), &admin, json!({"stage": "qualified"}))).await;
        }
        deals.push(deal);
    }
    let (status, _, body) = call(&app, crate::crm_support::delete(&format!("{BASE}/deals/{}", deals[4]), &admin)).await;
    assert_eq!(status.as_u16(), 204, "{body}");

    let list = format!("{BASE}/deals");
    for (query, expected) in [
        (String::new(), 4),
        ("stage=qualified".into(), 2),
        ("stage=LEAD".into(), 2),
        (format!("customer_id={first}"), 2),
        (format!("assigned_to={other_rep}"), 2),
        (format!("stage=qualified&customer_id={second}&assigned_to={rep}"), 1),
        ("stage=&customer_id=%20".into(), 4),
        ("unknown=1".into(), 4),
    ] {
        assert_eq!(export_matches_list(&app, &admin, "deals", &list, &query).await, expected, "{query}");
    }
    // Pages are the list's: the export holds every one of them.
    let (_, _, _, jsonl) =
        download(&app, get(&format!("{EXPORTS}/deals?format=jsonl&page=2&page_size=1"), &admin)).await;
    assert_eq!(jsonl.lines().count(), 4, "{jsonl}");
    refused_like_the_list(&app, &admin, "deals", &list, "stage=won", 400, "VALIDATION_ERROR").await;
    refused_like_the_list(&app, &admin, "deals", &list, "customer_id=nope", 400, "INVALID_UUID").await;
    refused_like_the_list(&app, &admin, "deals", &list, "assigned_to=1", 400, "INVALID_UUID").await;
    t.stop().await;
}

#[actix_web::test]
async fn interactions_export_in_the_interaction_lists_order() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Talker", "email": "talk@example.com"})).await);
    // Logged in another order than they started, so the list's order (`started_at`) shows.
    for (kind, started_at) in [
        ("call", "2026-03-02T09:00:00Z"),
        ("email", "2026-05-01T09:00:00Z"),
        ("note", "2026-01-15T09:00:00Z"),
        ("meeting", "2026-04-20T09:00:00Z"),
    ] {
        let body = json!({"customer_id": customer, "type": kind, "direction": "outbound", "subject": kind,
                          "started_at": started_at});
        expect(&app, 201, post(&format!("{BASE}/interactions"), &admin, body)).await;
    }
    let list = format!("{BASE}/interactions");
    // The list takes no filter and ignores these; so does the export.
    for query in ["", "type=call&customer_id=nope"] {
        assert_eq!(export_matches_list(&app, &admin, "interactions", &list, query).await, 4, "{query}");
    }
    t.stop().await;
}

#[actix_web::test]
async fn orders_export_with_the_order_lists_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (first, second) = (commerce::customer(&t.state.pool).await, commerce::customer(&t.state.pool).await);
    let mut orders = Vec::new();
    for customer in [first, second, first, second, first] {
        let order = commerce::order(&app, &admin, customer, json!({})).await;
        orders.push(order["id"].as_str().expect("an id").to_owned());
    }
    let (status, body) =
        commerce::post(&app, &admin, &format!("{ORDERS}/{}/cancel", orders[2]), json!({"reason": "test"})).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    let (status, body) = commerce::delete(&app, &admin, &format!("{ORDERS}/{}", orders[4])).await;
    assert!(status.is_success(), "{body}");
    // Two orders three days old: the date range is of creation days (UTC), both ends inclusive.
    let mut conn = t.state.pool.get().await.expect("conn");
    let back_date = format!(
        "UPDATE orders SET created_at = created_at - interval '3 days' WHERE id IN ('{}', '{}')",
        orders[0], orders[3]
    );
    diesel_async::SimpleAsyncConnection::batch_execute(&mut *conn, &back_date).await.expect("back-date");
    drop(conn);

    let (today, three_days_ago, yesterday) = (today(), days_from_today(-3), days_from_today(-1));
    for (query, expected) in [
        (String::new(), 4),
        ("status=cancelled".into(), 1),
        ("status=PENDING".into(), 3),
        (format!("customer_id={first}"), 2),
        (format!("date_from={today}"), 2),
        (format!("date_to={three_days_ago}"), 2),
        (format!("date_from={three_days_ago}&date_to={three_days_ago}"), 2),
        (format!("date_from={yesterday}&date_to={yesterday}"), 0),
        (format!("status=pending&customer_id={second}&date_to={today}"), 2),
        ("status=&date_from=".into(), 4),
    ] {
        assert_eq!(export_matches_list(&app, &admin, "orders", ORDERS, &query).await, expected, "{query}");
    }
    refused_like_the_list(&app, &admin, "orders", ORDERS, "status=shipped", 400, "VALIDATION_ERROR").await;
    refused_like_the_list(&app, &admin, "orders", ORDERS, "customer_id=x", 400, "INVALID_UUID").await;
    refused_like_the_list(&app, &admin, "orders", ORDERS, "date_from=2026-02-30", 400, "VALIDATION_ERROR").await;
    refused_like_the_list(&app, &admin, "orders", ORDERS, "date_to=1899-12-31", 400, "VALIDATION_ERROR").await;
    let backwards = format!("date_from={today}&date_to={yesterday}");
    refused_like_the_list(&app, &admin, "orders", ORDERS, &backwards, 400, "VALIDATION_ERROR").await;
    t.stop().await;
}

/// Four inventory records (two products at two locations), one deleted, one low on stock, and
/// their movements; returns the products', locations' and records' ids.
async fn stocked<S, B>(app: &S, admin: &str) -> ([String; 2], [String; 2], Vec<String>)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let products = [commerce::product(app, admin, "EXP-1").await, commerce::product(app, admin, "EXP-2").await];
    let locations = [commerce::location(app, admin, "EXP-A").await, commerce::location(app, admin, "EXP-B").await];
    let mut records = Vec::new();
    for (product, location, on_hand) in [(0, 0, 10), (0, 1, 0), (1, 0, 5), (1, 1, 50)] {
        let record = commerce::stock(app, admin, &products[product], &locations[location], on_hand).await;
        records.push(record["id"].as_str().expect("an id").to_owned());
    }
    // Low, once adjusted: 8 available at a reorder point of 10. Not low: 46 over 5, and a record
    // without a reorder point.
    for (record, reorder_point) in [(0, 10), (3, 5)] {
        let (status, body) = commerce::put(
            app,
            admin,
            &format!("{INVENTORY}/{}", records[record]),
            json!({"reorder_point": reorder_point}),
        )
        .await;
        assert_eq!(status.as_u16(), 200, "{body}");
    }
    for (record, delta) in [(0, -2), (3, -4), (2, -5)] {
        let body = json!({"quantity_delta": delta, "reason": "count"});
        let (status, body) = commerce::post(app, admin, &format!("{INVENTORY}/{}/adjust", records[record]), body).await;
        assert_eq!(status.as_u16(), 200, "{body}");
    }
    let (status, body) = commerce::delete(app, admin, &format!("{INVENTORY}/{}", records[2])).await;
    assert!(status.is_success(), "{body}");
    let ids = |values: &[Value; 2]| values.clone().map(|v| v["id"].as_str().expect("an id").to_owned());
    (ids(&products), ids(&locations), records)
}

#[actix_web::test]
async fn inventory_exports_with_the_inventory_lists_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let ([first, _], [_, second_location], _) = stocked(&app, &admin).await;
    for (query, expected) in [
        (String::new(), 3),
        (format!("product_id={first}"), 2),
        (format!("location_id={second_location}"), 2),
        ("low_stock=true".into(), 1),
        ("low_stock=false".into(), 3),
        (format!("product_id={first}&location_id={second_location}&low_stock=false"), 1),
        (format!("product_id={first}&low_stock=true"), 1),
        ("product_id=&location_id=".into(), 3),
    ] {
        assert_eq!(export_matches_list(&app, &admin, "inventory", INVENTORY, &query).await, expected, "{query}");
    }
    refused_like_the_list(&app, &admin, "inventory", INVENTORY, "product_id=nope", 400, "INVALID_UUID").await;
    refused_like_the_list(&app, &admin, "inventory", INVENTORY, "low_stock=maybe", 400, "VALIDATION_ERROR").await;
    t.stop().await;
}

#[actix_web::test]
async fn stock_movements_export_with_the_movement_lists_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let ([first, _], [first_location, _], records) = stocked(&app, &admin).await;
    // The first record's movements three days old (the ledger refuses updates, hence the role).
    let mut conn = t.state.pool.get().await.expect("conn");
    let back_date = format!(
        "BEGIN; SET LOCAL session_replication_role = replica; \
         UPDATE stock_movements SET created_at = created_at - interval '3 days' WHERE inventory_id = '{}'; COMMIT;",
        records[0]
    );
    diesel_async::SimpleAsyncConnection::batch_execute(&mut *conn, &back_date).await.expect("back-date");
    drop(conn);

    let (today, three_days_ago, yesterday) = (today(), days_from_today(-3), days_from_today(-1));
    let total = export_matches_list(&app, &admin, "stock-movements", MOVEMENTS, "").await;
    assert!(total >= 5, "three receipts and three adjustments at least: {total}");
    for query in [
        "type=Receipt".to_owned(),
        "type=adjustment".to_owned(),
        format!("inventory_id={}", records[0]),
        format!("product_id={first}"),
        format!("location_id={first_location}"),
        format!("reference_id={}", Uuid::now_v7()),
        format!("date_from={today}"),
        format!("date_to={three_days_ago}"),
        format!("date_from={three_days_ago}&date_to={yesterday}"),
        format!("type=Adjustment&product_id={first}&date_from={today}"),
        "type=&inventory_id=&date_to=".to_owned(),
    ] {
        let count = export_matches_list(&app, &admin, "stock-movements", MOVEMENTS, &query).await;
        assert!(count <= total, "{query}");
    }
    assert_eq!(
        export_matches_list(&app, &admin, "stock-movements", MOVEMENTS, &format!("date_to={three_days_ago}")).await,
        2,
        "the first record's receipt and adjustment"
    );
    refused_like_the_list(&app, &admin, "stock-movements", MOVEMENTS, "type=Sale", 400, "VALIDATION_ERROR").await;
    refused_like_the_list(&app, &admin, "stock-movements", MOVEMENTS, "inventory_id=x", 400, "INVALID_UUID").await;
    let backwards = format!("date_from={today}&date_to={yesterday}");
    refused_like_the_list(&app, &admin, "stock-movements", MOVEMENTS, &backwards, 400, "VALIDATION_ERROR").await;
    t.stop().await;
}

#[actix_web::test]
async fn customers_and_products_exports_match_their_lists() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    admins_customer(&app, &admin).await;
    for (name, tier) in [("Cleo", "pro"), ("Abe", "free"), ("Bea", "pro"), ("Dan", "basic")] {
        let email = format!("{}@example.com", name.to_lowercase());
        new_customer(&app, &admin, json!({"name": name, "email": email, "tier": tier})).await;
    }
    let customers = format!("{BASE}/customers");
    for query in ["", "tier=pro", "sort=name", "sort=-tier,name", "search=example&sort=email", "status=LEAD"] {
        export_matches_list(&app, &admin, "customers", &customers, query).await;
    }
    for sku in ["EXP-C", "EXP-A", "EXP-B"] {
        commerce::product(&app, &admin, sku).await;
    }
    for (query, expected) in
        [("sort=sku", 3), ("sort=-price", 3), ("sort=price", 3), ("search=EXP-A", 1), ("category=tools&sort=name", 3)]
    {
        assert_eq!(export_matches_list(&app, &admin, "products", "/api/v1/warehouse/products", query).await, expected);
    }
    refused_like_the_list(
        &app,
        &admin,
        "products",
        "/api/v1/warehouse/products",
        "sort=colour",
        400,
        "VALIDATION_ERROR",
    )
    .await;
    t.stop().await;
}
