//! Products through the HTTP API: the 16 endpoints, SKU uniqueness, lookups, lifecycle, rejections.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use serde_json::json;
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{assert_error, delete, get, location, post, product, put, stock};

const PRODUCTS: &str = "/api/v1/warehouse/products";

fn skus(body: &serde_json::Value) -> Vec<String> {
    body["data"].as_array().expect("array").iter().map(|p| p["sku"].as_str().unwrap_or_default().to_owned()).collect()
}

#[actix_web::test]
async fn products_are_created_read_replaced_listed_and_deleted() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let body = json!({"sku": " Wid-001 ", "name": "Widget", "description": "A widget", "category": "Tools",
                      "brand": "Acme", "weight_grams": 250, "length_mm": 10, "width_mm": 20, "height_mm": 30,
                      "price": 1999, "currency": "usd"});
    let (status, created) = post(&app, &admin, PRODUCTS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let p = &created["data"];
    assert_eq!(
        (p["sku"].as_str(), p["name"].as_str(), p["status"].as_str()),
        (Some("Wid-001"), Some("Widget"), Some("active"))
    );
    assert_eq!(
        (p["price"].as_i64(), p["currency"].as_str(), p["weight_grams"].as_i64()),
        (Some(1999), Some("USD"), Some(250))
    );
    for field in
        ["id", "description", "category", "brand", "length_mm", "width_mm", "height_mm", "created_at", "updated_at"]
    {
        assert!(p.get(field).is_some(), "{field} on the wire");
    }
    let id = p["id"].as_str().expect("id").to_owned();

    assert_error(
        &post(&app, &admin, PRODUCTS, json!({"sku": "WID-001", "name": "Dup"})).await,
        StatusCode::CONFLICT,
        "ALREADY_EXISTS",
    );
    let (status, fetched) = get(&app, &admin, &format!("{PRODUCTS}/{id}")).await;
    assert_eq!((status, fetched["data"]["sku"].as_str()), (StatusCode::OK, Some("Wid-001")));
    let (status, by_sku) = get(&app, &admin, &format!("{PRODUCTS}/sku/wid-001")).await;
    assert_eq!((status, by_sku["data"]["id"].as_str()), (StatusCode::OK, Some(id.as_str())), "case-insensitive");

    let (status, replaced) =
        put(&app, &admin, &format!("{PRODUCTS}/{id}"), json!({"sku": "WID-002", "name": "Widget 2", "brand": "Bolt"}))
            .await;
    assert_eq!(status, StatusCode::OK, "{replaced}");
    assert_eq!(
        (replaced["data"]["sku"].as_str(), replaced["data"]["category"].is_null()),
        (Some("WID-002"), true),
        "PUT replaces every field"
    );
    assert_eq!(replaced["data"]["created_at"], p["created_at"]);

    for (sku, category, brand, price) in
        [("A-1", "Garden", "Acme", 500), ("B-1", "garden", "Zed", 100), ("C-1", "Tools", "Acme", 900)]
    {
        let body = json!({"sku": sku, "name": format!("Item {sku}"), "category": category, "brand": brand, "price": price, "currency": "USD"});
        assert_eq!(post(&app, &admin, PRODUCTS, body).await.0, StatusCode::CREATED);
    }
    let (_, all) = get(&app, &admin, PRODUCTS).await;
    assert_eq!(all["pagination"]["total"], 4);
    assert_eq!(skus(&all), ["C-1", "B-1", "A-1", "WID-002"], "newest first");
    let (_, by_name) = get(&app, &admin, &format!("{PRODUCTS}?sort=-name&page_size=2")).await;
    assert_eq!(skus(&by_name), ["WID-002", "C-1"]);
    let (_, by_price) = get(&app, &admin, &format!("{PRODUCTS}?sort=price")).await;
    assert_eq!(skus(&by_price), ["B-1", "A-1", "C-1", "WID-002"], "no price last");
    let (_, garden) = get(&app, &admin, &format!("{PRODUCTS}?category=GARDEN")).await;
    assert_eq!(garden["pagination"]["total"], 2);
    let (_, search) = get(&app, &admin, &format!("{PRODUCTS}?search=item%20a&brand=acme")).await;
    assert_eq!(skus(&search), ["A-1"]);
    let (_, by_category) = get(&app, &admin, &format!("{PRODUCTS}/category/garden")).await;
    assert_eq!(by_category["pagination"]["total"], 2);
    let (_, by_brand) = get(&app, &admin, &format!("{PRODUCTS}/brand/ACME")).await;
    assert_eq!(skus(&by_brand), ["C-1", "A-1"]);
    let (status, categories) = get(&app, &admin, &format!("{PRODUCTS}/categories")).await;
    assert_eq!(status, StatusCode::OK);
    let mut distinct: Vec<String> = serde_json::from_value(categories["data"].clone()).expect("strings");
    distinct.sort();
    assert_eq!(distinct, ["Garden", "Tools", "garden"], "distinct values as stored");
    let (_, brands) = get(&app, &admin, &format!("{PRODUCTS}/brands")).await;
    assert_eq!(brands["data"], json!(["Acme", "Bolt", "Zed"]));

    let (status, gone) = post(&app, &admin, &format!("{PRODUCTS}/{id}/discontinue"), json!({})).await;
    assert_eq!((status, gone["data"]["status"].as_str()), (StatusCode::OK, Some("discontinued")));
    assert_error(
        &post(&app, &admin, &format!("{PRODUCTS}/{id}/discontinue"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );
    let (_, discontinued) = get(&app, &admin, &format!("{PRODUCTS}/status/discontinued")).await;
    assert_eq!(skus(&discontinued), ["WID-002"]);
    let (_, active) = get(&app, &admin, &format!("{PRODUCTS}?status=active")).await;
    assert_eq!(active["pagination"]["total"], 3);
    let (status, back) = post(&app, &admin, &format!("{PRODUCTS}/{id}/activate"), json!({})).await;
    assert_eq!((status, back["data"]["status"].as_str()), (StatusCode::OK, Some("active")));
    assert_error(
        &post(&app, &admin, &format!("{PRODUCTS}/{id}/activate"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );

    let (status, _) = delete(&app, &admin, &format!("{PRODUCTS}/{id}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_error(&get(&app, &admin, &format!("{PRODUCTS}/{id}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_error(&delete(&app, &admin, &format!("{PRODUCTS}/{id}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_error(&get(&app, &admin, &format!("{PRODUCTS}/sku/WID-002")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, _) = post(&app, &admin, PRODUCTS, json!({"sku": "wid-002", "name": "Reborn"})).await;
    assert_eq!(status, StatusCode::CREATED, "a deleted product frees its SKU");
    t.stop().await;
}

#[actix_web::test]
async fn a_products_stock_availability_and_movements() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let id = widget["id"].as_str().expect("id").to_owned();
    let (kyiv, lviv) = (location(&app, &admin, "KYIV").await, location(&app, &admin, "LVIV").await);
    let first = stock(&app, &admin, &widget, &kyiv, 10).await;
    stock(&app, &admin, &widget, &lviv, 5).await;
    let reserve = json!({"quantity": 4, "order_id": Uuid::now_v7()});
    let (status, _) = post(
        &app,
        &admin,
        &format!("/api/v1/warehouse/inventory/{}/reserve", first["id"].as_str().expect("id")),
        reserve,
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let (status, availability) = get(&app, &admin, &format!("{PRODUCTS}/{id}/availability")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        availability["data"],
        json!({"product_id": id, "quantity_on_hand": 15, "quantity_reserved": 4, "quantity_available": 11, "quantity_committed": 0,
               "quantity_incoming": 0})
    );
    let (_, records) = get(&app, &admin, &format!("{PRODUCTS}/{id}/inventory")).await;
    assert_eq!(records["pagination"]["total"], 2);
    let (_, movements) = get(&app, &admin, &format!("{PRODUCTS}/{id}/stock-movements")).await;
    assert_eq!(movements["pagination"]["total"], 3, "two receipts and a reservation");
    assert_eq!(movements["data"][0]["type"], "Reservation");
    let nobody = Uuid::now_v7();
    for tail in ["availability", "inventory", "stock-movements"] {
        assert_error(
            &get(&app, &admin, &format!("{PRODUCTS}/{nobody}/{tail}")).await,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        );
    }
    t.stop().await;
}

#[actix_web::test]
async fn product_rejections_and_permissions() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for (body, field) in [
        (json!({"sku": " ", "name": "x"}), "sku"),
        (json!({"sku": "s".repeat(65), "name": "x"}), "sku"),
        (json!({"sku": "s", "name": ""}), "name"),
        (json!({"sku": "s", "name": "x", "weight_grams": -1}), "weight_grams"),
        (json!({"sku": "s", "name": "x", "price": -1, "currency": "USD"}), "price"),
        (json!({"sku": "s", "name": "x", "price": 100}), "currency"),
        (json!({"sku": "s", "name": "x", "price": 100, "currency": "ABC"}), "currency"),
        (json!({"name": "x"}), "sku"),
    ] {
        let result = post(&app, &admin, PRODUCTS, body).await;
        assert_error(&result, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(result.1["error"]["details"][field].is_string(), "{field}: {}", result.1);
    }
    assert_error(
        &get(&app, &admin, &format!("{PRODUCTS}?sort=weight")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{PRODUCTS}?status=gone")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(
        &get(&app, &admin, &format!("{PRODUCTS}/status/gone")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(&get(&app, &admin, &format!("{PRODUCTS}/not-a-uuid")).await, StatusCode::BAD_REQUEST, "INVALID_UUID");
    let missing = format!("{PRODUCTS}/{}", Uuid::now_v7());
    assert_error(
        &put(&app, &admin, &missing, json!({"sku": "a", "name": "b"})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );
    assert_error(
        &post(&app, &admin, &format!("{missing}/discontinue"), json!({})).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    );

    // A staff member may read the catalogue but not change it.
    let widget = product(&app, &admin, "W-1").await;
    let (_, user) = register_staff(&app, "reader@example.com", "password-1").await;
    let (status, _) = get(&app, &user, &format!("{PRODUCTS}/{}", widget["id"].as_str().expect("id"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_error(
        &post(&app, &user, PRODUCTS, json!({"sku": "U-1", "name": "x"})).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    );
    assert_error(
        &delete(&app, &user, &format!("{PRODUCTS}/{}", widget["id"].as_str().expect("id"))).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    );
    let (status, _) = send_patch(&app, &admin).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "a known path with the wrong method");
    t.stop().await;
}

async fn send_patch<S, B>(app: &S, token: &str) -> (StatusCode, serde_json::Value)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    crate::commerce_support::send(app, token, actix_web::http::Method::PATCH, &format!("{PRODUCTS}/categories"), None)
        .await
}
