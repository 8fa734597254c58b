//! The published contract as the server keeps it (docs/conventions.md and docs/api-contract.md): every problem of a body at
//! once, for every operation that takes one; 405 names the allowed methods; optional bodies are
//! optional but never silently dropped.

use actix_web::http::{Method, StatusCode};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

/// The path with every `{param}` filled: a fresh UUID, or a word for a named segment.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some("email") => "someone@example.com".to_owned(),
            Some(name) if name == "id" || name.ends_with("_id") => uuid::Uuid::now_v7().to_string(),
            Some(_) => "x".to_owned(),
            None => segment.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn required_fields(document: &Value, operation: &Value) -> Vec<String> {
    let Some(reference) = operation.pointer("/requestBody/content/application~1json/schema/$ref") else {
        return Vec::new();
    };
    let name = reference.as_str().unwrap_or("").trim_start_matches("#/components/schemas/");
    let schema = &document["components"]["schemas"][name];
    schema["required"].as_array().into_iter().flatten().filter_map(|r| r.as_str().map(str::to_owned)).collect()
}

/// `{}` to every operation whose body has required fields: one 400 naming each of them.
#[actix_web::test]
async fn an_empty_object_names_every_missing_field_of_every_body() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let document = api::openapi::document();
    let mut checked = 0;
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            let required = required_fields(document, operation);
            if required.is_empty() {
                continue;
            }
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).expect("method");
            let request =
                TestRequest::default().method(method.clone()).uri(&concrete(path)).insert_header(bearer(&token));
            let (status, _, body) = call(&app, request.set_json(json!({}))).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {path}: {body}");
            let details = body["error"]["details"].as_object().unwrap_or_else(|| panic!("{method} {path}: {body}"));
            for field in &required {
                assert_eq!(details.get(field), Some(&json!("is required")), "{method} {path} {field}: {body}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} operations have required body fields");
    t.stop().await;
}

#[actix_web::test]
async fn missing_fields_wrong_types_and_broken_rules_are_named_together() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let request = TestRequest::post()
        .uri("/api/v1/customer-mgmt/customers")
        .insert_header(bearer(&token))
        .set_json(json!({ "name": 42, "tags": "not-a-list", "company_id": "nope" }));
    let (status, _, body) = call(&app, request).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR", "{body}");
    let details = &body["error"]["details"];
    assert_eq!(details["email"], "is required", "{body}");
    assert_eq!(details["name"], "must be a string", "{body}");
    assert!(details["tags"].as_str().is_some_and(|m| m.starts_with("must be an array")), "{body}");
    assert!(details["company_id"].as_str().is_some_and(|m| m.contains("UUID")), "{body}");

    // The interactions example of the issue: `{}` names every required field, not only the first.
    let request =
        TestRequest::post().uri("/api/v1/customer-mgmt/interactions").insert_header(bearer(&token)).set_json(json!({}));
    let (status, _, body) = call(&app, request).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let details = body["error"]["details"].as_object().expect("details");
    assert!(details.len() >= 3 && details.contains_key("customer_id"), "{body}");

    // Nothing was created by any of it.
    let (_, _, list) =
        call(&app, TestRequest::get().uri("/api/v1/customer-mgmt/customers").insert_header(bearer(&token))).await;
    assert_eq!(list["pagination"]["total"], 0, "{list}");
    t.stop().await;
}

#[actix_web::test]
async fn a_lone_malformed_email_keeps_its_own_code() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let create = |body: Value| {
        TestRequest::post().uri("/api/v1/customer-mgmt/customers").insert_header(bearer(&token)).set_json(body)
    };
    let (status, _, body) = call(&app, create(json!({ "name": "Ada", "email": "not an email" }))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_EMAIL")), "{body}");
    assert!(body["error"]["details"]["email"].is_string(), "{body}");
    // With another problem beside it, both are named under VALIDATION_ERROR.
    let (status, _, body) = call(&app, create(json!({ "email": "not an email" }))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")), "{body}");
    assert!(body["error"]["details"]["email"].is_string() && body["error"]["details"]["name"].is_string(), "{body}");
    t.stop().await;
}

#[actix_web::test]
async fn method_not_allowed_names_the_allowed_methods() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    for (method, uri, allowed) in [
        (Method::TRACE, "/api/v1/identity/users/login", "POST"),
        (Method::PATCH, "/api/v1/customer-mgmt/customers", "GET, POST"),
        (Method::DELETE, "/health", "GET"),
    ] {
        let (status, headers, body) = call(&app, TestRequest::default().method(method.clone()).uri(uri)).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}: {body}");
        let allow = headers.get("allow").and_then(|v| v.to_str().ok()).unwrap_or_default();
        assert_eq!(allow, allowed, "{method} {uri}");
    }
    t.stop().await;
}

#[actix_web::test]
async fn an_optional_body_may_be_absent_but_not_malformed() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let create = TestRequest::post()
        .uri("/api/v1/customer-mgmt/customers")
        .insert_header(bearer(&token))
        .set_json(json!({ "name": "Ada", "email": "ada@example.com", "status": "customer" }));
    let (status, _, created) = call(&app, create).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let churn = format!("/api/v1/customer-mgmt/customers/{}/churn", created["data"]["id"].as_str().expect("id"));
    let malformed = TestRequest::post()
        .uri(&churn)
        .insert_header(bearer(&token))
        .insert_header(("content-type", "application/json"))
        .set_payload("{\"reason\": 5}");
    let (status, _, body) = call(&app, malformed).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a malformed optional body is refused, not ignored: {body}");
    let (status, _, body) = call(&app, TestRequest::post().uri(&churn).insert_header(bearer(&token))).await;
    assert_eq!(status, StatusCode::OK, "no body at all is fine: {body}");
    t.stop().await;
}

#[actix_web::test]
async fn an_administrator_cannot_lock_themselves_out() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, _, me) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&token))).await;
    let id = me["data"]["id"].as_str().expect("my id").to_owned();
    for (method, uri, body) in [
        (Method::PUT, format!("/api/v1/identity/users/{id}/ban"), None),
        (Method::PUT, format!("/api/v1/identity/users/{id}/suspend"), None),
        (Method::PATCH, format!("/api/v1/identity/users/{id}/status"), Some(json!({"status": "suspended"}))),
    ] {
        let mut request = TestRequest::default().method(method.clone()).uri(&uri).insert_header(bearer(&token));
        if let Some(body) = body {
            request = request.set_json(body);
        }
        let (status, _, answer) = call(&app, request).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {uri}: {answer}");
    }
    // Still active, still signed in.
    let (status, _, me) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&token))).await;
    assert_eq!((status, me["data"]["status"].as_str()), (StatusCode::OK, Some("active")), "{me}");
    t.stop().await;
}
