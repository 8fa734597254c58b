//! Helpers of the order and warehouse tests: requests with a token, and fixtures made through the
//! API (products, locations, stock, orders) or, for customers, straight in the database.

use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::test::TestRequest;
use diesel::sql_types::{BigInt, Text, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use postgres_toolkit::DbPool;
use serde_json::{json, Value};
use tally_tests::{bearer, call};
use uuid::Uuid;

/// Sends `method uri` with `token` and an optional JSON body; returns the status and the body.
pub async fn send<S, B>(app: &S, token: &str, method: Method, uri: &str, body: Option<Value>) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let mut request = TestRequest::default().method(method).uri(uri).insert_header(bearer(token));
    if let Some(body) = body {
        request = request.set_json(body);
    }
    let (status, _, body) = call(app, request).await;
    (status, body)
}

pub async fn get<S, B>(app: &S, token: &str, uri: &str) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    send(app, token, Method::GET, uri, None).await
}

pub async fn post<S, B>(app: &S, token: &str, uri: &str, body: Value) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    send(app, token, Method::POST, uri, Some(body)).await
}

pub async fn put<S, B>(app: &S, token: &str, uri: &str, body: Value) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    send(app, token, Method::PUT, uri, Some(body)).await
}

pub async fn delete<S, B>(app: &S, token: &str, uri: &str) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    send(app, token, Method::DELETE, uri, None).await
}

/// Asserts an error envelope with `status` and `code`.
pub fn assert_error(result: &(StatusCode, Value), status: StatusCode, code: &str) {
    assert_eq!(result.0, status, "expected {status} {code}, got {}", result.1);
    assert_eq!(result.1["status"], "error", "{}", result.1);
    assert_eq!(result.1["error"]["code"], code, "{}", result.1);
}

/// The id of a response's `data`.
pub fn id_of(body: &Value) -> String {
    body["data"]["id"].as_str().expect("data.id").to_owned()
}

pub async fn product<S, B>(app: &S, token: &str, sku: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"sku": sku, "name": format!("Product {sku}"), "category": "Tools", "brand": "Acme",
                      "price": 1999, "currency": "USD"});
    let (status, body) = post(app, token, "/api/v1/warehouse/products", body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

pub async fn location<S, B>(app: &S, token: &str, code: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"code": code, "name": format!("Location {code}"), "type": "Warehouse", "country": "UA",
                      "address": {"city": "Kyiv", "street": "1 Khreshchatyk"}, "capacity": 1000});
    let (status, body) = post(app, token, "/api/v1/warehouse/locations", body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

/// An inventory record of `product` at `location` holding `on_hand`.
pub async fn stock<S, B>(app: &S, token: &str, product: &Value, location: &Value, on_hand: i64) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"product_id": product["id"], "location_id": location["id"], "quantity_on_hand": on_hand});
    let (status, body) = post(app, token, "/api/v1/warehouse/inventory", body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

/// A customer, inserted directly (the customer API belongs to another context).
pub async fn customer(pool: &DbPool) -> Uuid {
    let id = Uuid::now_v7();
    let mut conn = pool.get().await.expect("conn");
    diesel::sql_query("INSERT INTO customers (id, name, email) VALUES ($1, $2, $3)")
        .bind::<SqlUuid, _>(id)
        .bind::<Text, _>("Test Customer")
        .bind::<Text, _>(format!("customer-{}@example.com", id.simple()))
        .execute(&mut conn)
        .await
        .expect("insert customer");
    id
}

pub async fn order<S, B>(app: &S, token: &str, customer_id: Uuid, extra: Value) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let mut body = json!({"customer_id": customer_id, "currency": "USD"});
    if let (Some(target), Some(fields)) = (body.as_object_mut(), extra.as_object()) {
        target.extend(fields.clone());
    }
    let (status, body) = post(app, token, "/api/v1/order-mgmt/orders", body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

/// Adds a line; returns the order.
pub async fn line<S, B>(app: &S, token: &str, order_id: &str, product_id: &str, quantity: i64, price: i64) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"product_id": product_id, "quantity": quantity, "unit_price": price, "currency": "USD"});
    let (status, body) = post(app, token, &format!("/api/v1/order-mgmt/orders/{order_id}/lines"), body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

#[derive(diesel::QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A `bigint` from a query that selects it `AS n`.
pub async fn scalar(pool: &DbPool, sql: &str) -> i64 {
    let mut conn = pool.get().await.expect("conn");
    let row: Number = diesel::sql_query(sql).get_result(&mut conn).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    row.n
}

/// Polls `GET uri` until `done(body)` holds; returns that body.
pub async fn wait_for<S, B, F>(app: &S, token: &str, uri: &str, what: &str, done: F) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
    F: Fn(&Value) -> bool,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, body) = get(app, token, uri).await;
        if done(&body) {
            return body;
        }
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}: {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Per record: Σ on-hand deltas, Σ reserved deltas and Σ committed quantities of its movements,
/// checked against the record (the ledger explains the quantities).
pub async fn assert_ledger_balances(pool: &DbPool) {
    let mismatches = scalar(
        pool,
        "SELECT count(*) AS n FROM inventory i LEFT JOIN LATERAL (\
           SELECT coalesce(sum(quantity_after - quantity_before), 0) AS on_hand, \
                  coalesce(sum(reserved_after - reserved_before), 0) AS reserved, \
                  coalesce(sum(quantity) FILTER (WHERE type = 'Commit'), 0) AS committed \
           FROM stock_movements m WHERE m.inventory_id = i.id) l ON TRUE \
         WHERE l.on_hand <> i.quantity_on_hand OR l.reserved <> i.quantity_reserved \
            OR l.committed <> i.quantity_committed",
    )
    .await;
    assert_eq!(mismatches, 0, "every record's quantities equal the sums of its movements");
}
