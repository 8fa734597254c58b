//! Locations through the HTTP API: the 14 endpoints, code uniqueness, activity, stock checks.

use actix_web::http::StatusCode;
use actix_web::test::init_service;
use api::build_app;
use serde_json::json;
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{assert_error, delete, get, location, post, product, put, stock};

const LOCATIONS: &str = "/api/v1/warehouse/locations";

fn codes(body: &serde_json::Value) -> Vec<String> {
    body["data"].as_array().expect("array").iter().map(|l| l["code"].as_str().unwrap_or_default().to_owned()).collect()
}

#[actix_web::test]
async fn locations_are_created_read_replaced_listed_and_deleted() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let body = json!({"code": " KYIV-1 ", "name": "Kyiv main", "type": "warehouse", "country": "ua", "capacity": 100,
                      "address": {"street": "1 Khreshchatyk", "city": "Kyiv", "postal_code": "01001"}});
    let (status, created) = post(&app, &admin, LOCATIONS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let l = &created["data"];
    assert_eq!(
        (l["code"].as_str(), l["type"].as_str(), l["country"].as_str()),
        (Some("KYIV-1"), Some("Warehouse"), Some("UA"))
    );
    assert_eq!(
        l["address"],
        json!({"street": "1 Khreshchatyk", "city": "Kyiv", "state": null, "postal_code": "01001", "country": "UA"})
    );
    assert_eq!((l["capacity"].as_i64(), l["is_active"].as_bool()), (Some(100), Some(true)));
    let id = l["id"].as_str().expect("id").to_owned();
    assert_error(
        &post(&app, &admin, LOCATIONS, json!({"code": "kyiv-1", "name": "x", "type": "Retail", "country": "UA"})).await,
        StatusCode::CONFLICT,
        "ALREADY_EXISTS",
    );

    let (status, replaced) = put(
        &app,
        &admin,
        &format!("{LOCATIONS}/{id}"),
        json!({"code": "KYIV-1", "name": "Kyiv shop", "type": "Retail", "country": "UA", "capacity": 50}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{replaced}");
    assert_eq!(
        (replaced["data"]["name"].as_str(), replaced["data"]["type"].as_str()),
        (Some("Kyiv shop"), Some("Retail"))
    );
    assert!(replaced["data"]["address"]["city"].is_null(), "PUT replaces the address");
    location(&app, &admin, "WAW").await;
    let (status, pl) =
        post(&app, &admin, LOCATIONS, json!({"code": "GDA", "name": "Gdansk", "type": "Dropship", "country": "PL"}))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{pl}");
    let gda = pl["data"]["id"].as_str().expect("id").to_owned();
    let (status, off) = post(&app, &admin, &format!("{LOCATIONS}/{gda}/deactivate"), json!({})).await;
    assert_eq!((status, off["data"]["is_active"].as_bool()), (StatusCode::OK, Some(false)));
    assert_error(
        &post(&app, &admin, &format!("{LOCATIONS}/{gda}/deactivate"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );

    let (_, all) = get(&app, &admin, LOCATIONS).await;
    assert_eq!(codes(&all), ["GDA", "WAW", "KYIV-1"], "newest first");
    let (_, active) = get(&app, &admin, &format!("{LOCATIONS}/active")).await;
    assert_eq!(codes(&active), ["WAW", "KYIV-1"]);
    let (_, inactive) = get(&app, &admin, &format!("{LOCATIONS}?is_active=false")).await;
    assert_eq!(codes(&inactive), ["GDA"]);
    let (_, ua) = get(&app, &admin, &format!("{LOCATIONS}?country=ua&type=Retail")).await;
    assert_eq!(codes(&ua), ["KYIV-1"]);
    let (_, search) = get(&app, &admin, &format!("{LOCATIONS}?search=shop")).await;
    assert_eq!(codes(&search), ["KYIV-1"]);
    let (_, by_type) = get(&app, &admin, &format!("{LOCATIONS}/type/warehouse")).await;
    assert_eq!(codes(&by_type), ["WAW"]);
    let (_, by_country) = get(&app, &admin, &format!("{LOCATIONS}/country/PL")).await;
    assert_eq!(codes(&by_country), ["GDA"]);
    let (status, by_code) = get(&app, &admin, &format!("{LOCATIONS}/code/gda")).await;
    assert_eq!((status, by_code["data"]["id"].as_str()), (StatusCode::OK, Some(gda.as_str())));
    let (status, on) = post(&app, &admin, &format!("{LOCATIONS}/{gda}/activate"), json!({})).await;
    assert_eq!((status, on["data"]["is_active"].as_bool()), (StatusCode::OK, Some(true)));
    assert_error(
        &post(&app, &admin, &format!("{LOCATIONS}/{gda}/activate"), json!({})).await,
        StatusCode::CONFLICT,
        "INVALID_STATUS_TRANSITION",
    );

    let (status, _) = delete(&app, &admin, &format!("{LOCATIONS}/{gda}")).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_error(&get(&app, &admin, &format!("{LOCATIONS}/{gda}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_error(&delete(&app, &admin, &format!("{LOCATIONS}/{gda}")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, _) =
        post(&app, &admin, LOCATIONS, json!({"code": "gda", "name": "Again", "type": "Virtual", "country": "PL"}))
            .await;
    assert_eq!(status, StatusCode::CREATED, "a deleted location frees its code");
    t.stop().await;
}

#[actix_web::test]
async fn a_locations_stock_utilization_and_guarded_delete() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let kyiv = location(&app, &admin, "KYIV").await;
    let id = kyiv["id"].as_str().expect("id").to_owned();
    let (widget, gadget) = (product(&app, &admin, "W-1").await, product(&app, &admin, "G-1").await);
    stock(&app, &admin, &widget, &kyiv, 200).await;
    stock(&app, &admin, &gadget, &kyiv, 50).await;
    let (status, utilization) = get(&app, &admin, &format!("{LOCATIONS}/{id}/utilization")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        utilization["data"],
        json!({"location_id": id, "capacity": 1000, "quantity_on_hand": 250, "utilization_percent": 25.0})
    );
    let (_, records) = get(&app, &admin, &format!("{LOCATIONS}/{id}/inventory")).await;
    assert_eq!(records["pagination"]["total"], 2);
    let (_, movements) = get(&app, &admin, &format!("{LOCATIONS}/{id}/stock-movements")).await;
    assert_eq!(movements["pagination"]["total"], 2);
    assert!(movements["data"].as_array().expect("array").iter().all(|m| m["type"] == "Receipt"));
    assert_error(&delete(&app, &admin, &format!("{LOCATIONS}/{id}")).await, StatusCode::CONFLICT, "LOCATION_HAS_STOCK");
    let empty = location(&app, &admin, "EMPTY").await;
    let (_, unlimited) =
        get(&app, &admin, &format!("{LOCATIONS}/{}/utilization", empty["id"].as_str().expect("id"))).await;
    assert_eq!(unlimited["data"]["quantity_on_hand"], 0);
    let nobody = Uuid::now_v7();
    for tail in ["inventory", "stock-movements", "utilization"] {
        assert_error(
            &get(&app, &admin, &format!("{LOCATIONS}/{nobody}/{tail}")).await,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
        );
    }
    t.stop().await;
}

#[actix_web::test]
async fn location_rejections_and_permissions() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for (body, field) in [
        (json!({"code": "", "name": "x", "type": "Warehouse", "country": "UA"}), "code"),
        (json!({"code": "a", "name": " ", "type": "Warehouse", "country": "UA"}), "name"),
        (json!({"code": "a", "name": "x", "type": "Store", "country": "UA"}), "type"),
        (json!({"code": "a", "name": "x", "type": "Warehouse", "country": "QQ"}), "country"),
        (json!({"code": "a", "name": "x", "type": "Warehouse", "country": "UKR"}), "country"),
        (json!({"code": "a", "name": "x", "type": "Warehouse", "country": "UA", "capacity": -1}), "capacity"),
        (
            json!({"code": "a", "name": "x", "type": "Warehouse", "country": "UA", "address": {"country": "PL"}}),
            "address.country",
        ),
    ] {
        let result = post(&app, &admin, LOCATIONS, body).await;
        assert_error(&result, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(result.1["error"]["details"][field].is_string(), "{field}: {}", result.1);
    }
    assert_error(
        &get(&app, &admin, &format!("{LOCATIONS}/type/Store")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    assert_error(&get(&app, &admin, &format!("{LOCATIONS}/country/QQ")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_error(&get(&app, &admin, &format!("{LOCATIONS}/code/none")).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_error(
        &get(&app, &admin, &format!("{LOCATIONS}?is_active=maybe")).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
    );
    let kyiv = location(&app, &admin, "KYIV").await;
    let (_, user) = register_staff(&app, "viewer@example.com", "password-1").await;
    let (status, _) = get(&app, &user, LOCATIONS).await;
    assert_eq!(status, StatusCode::OK);
    let uri = format!("{LOCATIONS}/{}/deactivate", kyiv["id"].as_str().expect("id"));
    assert_error(&post(&app, &user, &uri, json!({})).await, StatusCode::FORBIDDEN, "FORBIDDEN");
    t.stop().await;
}
