//! Who may call what: the router walk. Every operation of the published
//! contract is in the route table (and the other way round), and a
//! self-registered account, a staff member and an anonymous caller get
//! exactly what the table and docs/identity.md say on every guarded route.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::auth::route_access::{Access, ROUTES};
use api::build_app;
use serde_json::json;
use tally_tests::{bearer, call, register, register_staff, TestApp};

/// The seeded `staff` grants (docs/identity.md), written out independently of the migration.
fn staff_may(resource: &str, action: &str) -> bool {
    let works_with = ["customers", "companies", "deals", "interactions", "orders"];
    let reads = ["products", "inventory", "stock_movements", "locations", "suppliers", "purchase_orders", "transfers"];
    (works_with.contains(&resource) && ["create", "read", "update"].contains(&action))
        || (reads.contains(&resource) && action == "read")
        || (resource, action) == ("analytics", "read")
        || (resource, action) == ("interactions", "delete")
        || (resource == "imports" && ["create", "read"].contains(&action))
}

/// A concrete path for a route pattern: every parameter gets a value of the right shape.
fn concrete(pattern: &str) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').map_or(rest.len(), |e| start + e + 1);
        let name = rest[start + 1..end - 1].split(':').next().unwrap_or_default();
        let value = match name {
            "email" => "nobody@example.com".to_owned(),
            "stage" => "lead".to_owned(),
            "status" => "active".to_owned(),
            "type" => "call".to_owned(),
            "code" | "country" => "UA".to_owned(),
            "_" => "index.html".to_owned(),
            "region" => "Europe".to_owned(),
            "resource" => "customers".to_owned(),
            "sku" | "category" | "brand" | "name" | "order_number" => "x".to_owned(),
            _ => uuid::Uuid::now_v7().to_string(),
        };
        out.push_str(&value);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn request(method: &str, uri: &str) -> TestRequest {
    let request = match method {
        "GET" => TestRequest::get(),
        "POST" => TestRequest::post(),
        "PUT" => TestRequest::put(),
        "PATCH" => TestRequest::patch(),
        _ => TestRequest::delete(),
    };
    let request = request.uri(uri);
    if matches!(method, "POST" | "PUT" | "PATCH") {
        request.set_json(json!({}))
    } else {
        request
    }
}

/// `{code:.+}` as the document writes it: `{code}`.
fn without_regex(pattern: &str) -> String {
    let mut out = String::new();
    let mut in_regex = false;
    for c in pattern.chars() {
        match c {
            ':' if out.rfind('{') > out.rfind('}') => in_regex = true,
            '}' => {
                in_regex = false;
                out.push(c);
            }
            _ if in_regex => {}
            _ => out.push(c),
        }
    }
    out
}

/// The router itself: every rule's method and pattern is one the router has (the gate answers 405
/// for a method the table does not list, so a rule that matches nothing, or a route the table
/// misses, shows up here or is unreachable).
#[actix_web::test]
async fn every_rule_names_a_route_the_router_serves() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    for rule in ROUTES {
        let uri = concrete(rule.pattern);
        let (status, _, body) = call(&app, request(rule.method, &uri)).await;
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{} {} ({uri}): {body}", rule.method, rule.pattern);
        assert!(!status.is_server_error(), "{} {}: {body}", rule.method, rule.pattern);
    }
    // And a method the table does not list is refused before any handler, on every kind of route.
    for (method, uri) in
        [("DELETE", "/api/v1/customer-mgmt/customers"), ("PATCH", "/api/v1/shared/countries"), ("PUT", "/health")]
    {
        let (status, _, body) = call(&app, request(method, uri)).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::METHOD_NOT_ALLOWED, Some("METHOD_NOT_ALLOWED"))
        );
    }
    t.stop().await;
}

#[actix_web::test]
async fn the_route_table_and_the_published_contract_list_the_same_operations() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, _, doc) = call(&app, TestRequest::get().uri("/api/v1/openapi.json")).await;
    let mut documented = BTreeSet::new();
    for (path, operations) in doc["paths"].as_object().expect("paths") {
        for method in operations.as_object().expect("operations").keys() {
            documented.insert((method.to_ascii_uppercase(), path.clone()));
        }
    }
    // The document and the docs page describe the API; they are not operations of it.
    let undocumented = [("GET", "/api/v1/openapi.json"), ("GET", "/docs"), ("GET", "/docs/{_:.*}")];
    let table: BTreeSet<(String, String)> = ROUTES
        .iter()
        .filter(|r| !undocumented.contains(&(r.method, r.pattern)))
        .map(|r| (r.method.to_owned(), without_regex(r.pattern)))
        .collect();
    assert_eq!(documented.difference(&table).collect::<Vec<_>>(), Vec::<&(String, String)>::new(), "no guard rule");
    assert_eq!(table.difference(&documented).collect::<Vec<_>>(), Vec::<&(String, String)>::new(), "undocumented");
    t.stop().await;
}

#[actix_web::test]
async fn every_guarded_route_answers_strangers_staff_and_anonymous_callers_as_the_table_says() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, stranger) = register(&app, "stranger@example.com", "password-1").await;
    let (_, staff) = register_staff(&app, "staff@example.com", "password-1").await;
    let mut business_routes = 0;
    for rule in ROUTES.iter().filter(|r| r.access.needs_token()) {
        let uri = concrete(rule.pattern);
        let what = format!("{} {}", rule.method, rule.pattern);

        let (status, _, body) = call(&app, request(rule.method, &uri)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what} without a token: {body}");

        let (status, _, body) = call(&app, request(rule.method, &uri).insert_header(bearer(&stranger))).await;
        match rule.access {
            Access::Permission(..) | Access::Admin => {
                business_routes += 1;
                assert_eq!(status, StatusCode::FORBIDDEN, "{what} as a self-registered account: {body}");
                assert_eq!(body["error"]["code"], "FORBIDDEN", "{what}");
            }
            // Self-service routes: the handler confines the caller to their own data.
            _ => assert!(
                status != StatusCode::UNAUTHORIZED && !status.is_server_error(),
                "{what} as a self-registered account: {status} {body}"
            ),
        }

        let (status, _, body) = call(&app, request(rule.method, &uri).insert_header(bearer(&staff))).await;
        let staff_allowed = match rule.access {
            Access::Permission(resource, action) => staff_may(resource, action),
            Access::Admin => false,
            _ => continue,
        };
        if staff_allowed {
            assert!(
                ![StatusCode::FORBIDDEN, StatusCode::UNAUTHORIZED].contains(&status) && !status.is_server_error(),
                "{what} as staff: {status} {body}"
            );
        } else {
            assert_eq!(status, StatusCode::FORBIDDEN, "{what} as staff: {body}");
        }
    }
    assert!(business_routes > 140, "the walk covered {business_routes} guarded business routes");
    t.stop().await;
}

#[actix_web::test]
async fn the_guard_runs_before_the_body_is_read() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, stranger) = register(&app, "nosy@example.com", "password-1").await;
    // Not JSON at all: a stranger still learns nothing but 403.
    let request = TestRequest::post()
        .uri("/api/v1/customer-mgmt/customers")
        .insert_header(bearer(&stranger))
        .insert_header(("content-type", "application/json"))
        .set_payload("{not json");
    let (status, _, body) = call(&app, request).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));
    t.stop().await;
}
