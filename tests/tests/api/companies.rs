//! Companies through the HTTP API, and the customer-management part of the OpenAPI document.

use actix_web::test::init_service;
use api::build_app;
use serde_json::json;
use tally_tests::{login, register, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::crm_support::{delete, expect, get, id_of, keys_of, post, put, reject, strip_roles, BASE};

#[actix_web::test]
async fn company_crud_search_and_validation() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let body = json!({"name": " Acme Corp ", "website": "https://acme.example", "industry": "Retail"});
    let acme = expect(&app, 201, post(&format!("{BASE}/companies"), &admin, body)).await;
    let id = id_of(&acme);
    let keys = keys_of(&acme);
    assert_eq!(keys, vec!["created_at", "id", "industry", "name", "updated_at", "website"]);
    assert_eq!(acme["name"], "Acme Corp");
    expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Globex 100%"}))).await;
    expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Initech"}))).await;

    let read = expect(&app, 200, get(&format!("{BASE}/companies/{id}"), &admin)).await;
    assert_eq!(read["website"], "https://acme.example");
    let (status, _, listed) = tally_tests::call(&app, get(&format!("{BASE}/companies?page_size=2"), &admin)).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(
        listed["pagination"],
        json!({"total": 3, "total_exact": true, "page": 1, "page_size": 2, "total_pages": 2})
    );
    assert_eq!(listed["data"][0]["name"], "Initech", "newest first");
    let found = expect(&app, 200, get(&format!("{BASE}/companies?search=ACME"), &admin)).await;
    assert_eq!(found.as_array().map(Vec::len), Some(1));
    let literal = expect(&app, 200, get(&format!("{BASE}/companies?search=%25"), &admin)).await;
    assert_eq!(literal[0]["name"], "Globex 100%");
    assert_eq!(literal.as_array().map(Vec::len), Some(1));

    let updated =
        expect(&app, 200, put(&format!("{BASE}/companies/{id}"), &admin, json!({"name": "Acme Ltd", "website": null})))
            .await;
    assert_eq!(
        (updated["name"].as_str(), updated["website"].is_null(), updated["industry"].as_str()),
        (Some("Acme Ltd"), true, Some("Retail"))
    );
    for (body, field) in [
        (json!({"name": ""}), "name"),
        (json!({"name": "n".repeat(256)}), "name"),
        (json!({"name": "X", "website": "ftp://x.example"}), "website"),
        (json!({"name": "X", "industry": "i".repeat(101)}), "industry"),
        (json!({"website": "https://x.example"}), "name"),
    ] {
        let error =
            reject(&app, 400, "VALIDATION_ERROR", post(&format!("{BASE}/companies"), &admin, body.clone())).await;
        assert!(error["details"][field].is_string(), "{body}: {error}");
    }
    reject(&app, 400, "VALIDATION_ERROR", put(&format!("{BASE}/companies/{id}"), &admin, json!({"website": "nope"})))
        .await;

    expect(&app, 204, delete(&format!("{BASE}/companies/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", get(&format!("{BASE}/companies/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", delete(&format!("{BASE}/companies/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", put(&format!("{BASE}/companies/{id}"), &admin, json!({"name": "Back"}))).await;
    let error = reject(
        &app,
        404,
        "NOT_FOUND",
        post(&format!("{BASE}/customers"), &admin, json!({"name": "C", "email": "c@example.com", "company_id": id})),
    )
    .await;
    assert!(error["details"]["company_id"].is_string());
    reject(&app, 400, "INVALID_UUID", get(&format!("{BASE}/companies/{}x", Uuid::now_v7()), &admin)).await;
    t.stop().await;
}

#[actix_web::test]
async fn company_permissions() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, user) = register_staff(&app, "worker@example.com", "password-1").await;
    let id = id_of(&expect(&app, 201, post(&format!("{BASE}/companies"), &user, json!({"name": "Mine"}))).await);
    expect(&app, 200, put(&format!("{BASE}/companies/{id}"), &user, json!({"industry": "Tech"}))).await;
    reject(&app, 403, "FORBIDDEN", delete(&format!("{BASE}/companies/{id}"), &user)).await;
    let (nobody_id, nobody) = register(&app, "nobody@example.com", "password-1").await;
    strip_roles(&t, nobody_id).await;
    reject(&app, 403, "FORBIDDEN", get(&format!("{BASE}/companies"), &nobody)).await;
    reject(&app, 403, "FORBIDDEN", post(&format!("{BASE}/companies"), &nobody, json!({"name": "X"}))).await;
    t.stop().await;
}

#[actix_web::test]
async fn openapi_documents_every_customer_management_path() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let doc = tally_tests::call(&app, actix_web::test::TestRequest::get().uri("/api/v1/openapi.json")).await.2;
    let paths = doc["paths"].as_object().expect("paths");
    let crm: Vec<&String> = paths.keys().filter(|p| p.starts_with("/api/v1/customer-mgmt/")).collect();
    for path in [
        "customers",
        "customers/{id}",
        "customers/email/{email}",
        "customers/{id}/qualify",
        "customers/{id}/convert",
        "customers/{id}/churn",
        "customers/{id}/reactivate",
        "customers/{id}/assign",
        "customers/{id}/tier",
        "customers/{id}/tags",
        "customers/{id}/status",
        "companies",
        "companies/{id}",
        "deals",
        "deals/{id}",
        "deals/{id}/basic-info",
        "deals/{id}/value",
        "deals/{id}/stage",
        "deals/{id}/win",
        "deals/{id}/lose",
        "deals/stage/{stage}",
        "deals/stats/pipeline",
        "deals/stats/won",
        "interactions",
        "interactions/{id}",
        "interactions/{id}/content",
        "interactions/{id}/outcome",
        "interactions/{id}/end",
        "interactions/{id}/follow-up",
        "interactions/{id}/attendees",
        "interactions/{id}/attendees/{attendee_id}",
        "interactions/customer/{id}",
        "interactions/company/{id}",
        "interactions/type/{type}",
        "interactions/created-by/{id}",
        "interactions/follow-ups",
    ] {
        let full = format!("/api/v1/customer-mgmt/{path}");
        assert!(paths.contains_key(&full), "OpenAPI lacks {full}; has {crm:?}");
    }
    t.stop().await;
}
