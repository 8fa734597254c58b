//! Conditional requests (docs/retries.md): ETags from the stored version, If-None-Match, If-Match.

use actix_web::http::{Method, StatusCode};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::commerce_support::{customer, line, location, order, product, stock};
use crate::crm_support::{code, BASE};

fn tag_of(headers: &actix_web::http::header::HeaderMap) -> String {
    let tag = headers.get("etag").and_then(|v| v.to_str().ok()).expect("an ETag").to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"') && !tag.starts_with("W/"), "strong: {tag}");
    tag
}

fn with(method: TestRequest, uri: &str, token: &str, header: (&'static str, &str), body: Option<Value>) -> TestRequest {
    let request = method.uri(uri).insert_header(bearer(token)).insert_header((header.0, header.1.to_owned()));
    match body {
        Some(body) => request.set_json(body),
        None => request,
    }
}

#[actix_web::test]
async fn tags_follow_the_resource_and_if_match_refuses_stale_writes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, headers, created) = call(
        &app,
        TestRequest::post()
            .uri(&format!("{BASE}/customers"))
            .insert_header(bearer(&admin))
            .set_json(json!({"name": "Ada", "email": "ada@example.com"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let first = tag_of(&headers);
    let uri = format!("{BASE}/customers/{}", created["data"]["id"].as_str().expect("id"));

    let (status, headers, _) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!((status, tag_of(&headers)), (StatusCode::OK, first.clone()), "the create answered the current tag");
    let (status, headers, body) =
        call(&app, with(TestRequest::get(), &uri, &admin, ("If-None-Match", &first), None)).await;
    assert_eq!((status, body), (StatusCode::NOT_MODIFIED, Value::Null), "304 without a body");
    assert_eq!(tag_of(&headers), first);

    // A write with the current tag succeeds and answers the new one.
    let rename = |name: &str| Some(json!({ "name": name }));
    let (status, headers, renamed) =
        call(&app, with(TestRequest::put(), &uri, &admin, ("If-Match", &first), rename("Ada King"))).await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    let second = tag_of(&headers);
    assert_ne!(second, first, "the tag changes with the resource");
    let (_, headers, _) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!(tag_of(&headers), second);
    let (status, _, _) = call(&app, with(TestRequest::get(), &uri, &admin, ("If-None-Match", &first), None)).await;
    assert_eq!(status, StatusCode::OK, "an old tag is not current");

    // A stale tag: 412 and nothing changes; lifecycle moves and deletes honour it too.
    let (status, _, refused) =
        call(&app, with(TestRequest::put(), &uri, &admin, ("If-Match", &first), rename("Lost Update"))).await;
    assert_eq!((status, code(&refused)), (StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED"), "{refused}");
    let qualify = format!("{uri}/qualify");
    let (status, _, _) =
        call(&app, with(TestRequest::post(), &qualify, &admin, ("If-Match", &first), Some(json!({})))).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    let (status, _, _) = call(&app, with(TestRequest::delete(), &uri, &admin, ("If-Match", "\"nope\""), None)).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED, "a tag of nothing never matches");
    let (_, headers, current) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!(
        (current["data"]["name"].as_str(), current["data"]["status"].as_str()),
        (Some("Ada King"), Some("lead"))
    );
    assert_eq!(tag_of(&headers), second, "nothing changed");
    let (status, _, _) =
        call(&app, with(TestRequest::post(), &qualify, &admin, ("If-Match", "*"), Some(json!({})))).await;
    assert_eq!(status, StatusCode::OK, "`*` matches any current representation");

    // Reference data is tagged too.
    let country = "/api/v1/shared/countries/UA";
    let (_, headers, _) = call(&app, TestRequest::get().uri(country).insert_header(bearer(&admin))).await;
    let tag = tag_of(&headers);
    let (status, _, _) = call(&app, with(TestRequest::get(), country, &admin, ("If-None-Match", &tag), None)).await;
    assert_eq!(status, StatusCode::NOT_MODIFIED);
    t.stop().await;
}

#[actix_web::test]
async fn of_eight_writers_holding_one_tag_exactly_one_wins() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-8").await;
    let uri = format!("/api/v1/warehouse/products/{}", widget["id"].as_str().expect("id"));
    let (_, headers, _) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    let tag = tag_of(&headers);
    let writers = (0..8).map(|n| {
        let body = json!({"sku": "W-8", "name": format!("Writer {n}"), "category": "Tools", "brand": "Acme",
                          "price": 1999 + n, "currency": "USD"});
        call(&app, with(TestRequest::put(), &uri, &admin, ("If-Match", &tag), Some(body)))
    });
    let answers = join_all(writers).await;
    let won: Vec<_> = answers.iter().filter(|(s, _, _)| *s == StatusCode::OK).collect();
    let lost =
        answers.iter().filter(|(s, _, b)| *s == StatusCode::PRECONDITION_FAILED && code(b) == "PRECONDITION_FAILED");
    assert_eq!((won.len(), lost.count()), (1, 7), "{answers:?}");
    let (_, headers, current) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!(current["data"]["name"], won[0].2["data"]["name"], "the winner's write is the one kept");
    assert_eq!(tag_of(&headers), tag_of(&won[0].1), "the winner was answered the current tag");
    t.stop().await;
}

#[actix_web::test]
async fn order_confirm_and_stock_operations_honour_if_match() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "W-1").await;
    let buyer = customer(&t.state.pool).await;
    let pending = order(&app, &admin, buyer, json!({})).await;
    let id = pending["id"].as_str().expect("id").to_owned();
    let uri = format!("/api/v1/order-mgmt/orders/{id}");
    let (_, headers, _) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    let before_line = tag_of(&headers);
    line(&app, &admin, &id, widget["id"].as_str().expect("id"), 1, 100).await;
    let (_, headers, _) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    let current = tag_of(&headers);
    assert_ne!(current, before_line, "a line change is a change of the order");

    let confirm = format!("{uri}/confirm");
    let (status, _, refused) =
        call(&app, with(TestRequest::post(), &confirm, &admin, ("If-Match", &before_line), Some(json!({})))).await;
    assert_eq!((status, code(&refused)), (StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED"));
    let (_, _, still) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!(still["data"]["status"], "pending");
    let (status, headers, confirmed) =
        call(&app, with(TestRequest::post(), &confirm, &admin, ("If-Match", &current), Some(json!({})))).await;
    assert_eq!((status, confirmed["data"]["status"].as_str()), (StatusCode::OK, Some("confirmed")), "{confirmed}");
    let answered = tag_of(&headers);
    assert_ne!(answered, current);

    // A keyed, conditional confirmation replays like any keyed request.
    let keyed = with(TestRequest::post(), &confirm, &admin, ("If-Match", &answered), Some(json!({})))
        .insert_header(("Idempotency-Key", "confirm-again"));
    let (status, _, body) = call(&app, keyed).await;
    // Already confirmed (409), or the warehouse's reply moved the order on meanwhile (412).
    assert!(
        [StatusCode::CONFLICT, StatusCode::PRECONDITION_FAILED].contains(&status),
        "a second confirmation changes nothing: {status} {body}"
    );

    // Stock: the answer's tag is the record's current one. (Another product: the confirmed order's
    // reservation may still be reaching the widget's stock.)
    let gadget = product(&app, &admin, "G-1").await;
    let shelf = location(&app, &admin, "L-1").await;
    let record = stock(&app, &admin, &gadget, &shelf, 10).await;
    let inventory = format!("/api/v1/warehouse/inventory/{}", record["id"].as_str().expect("id"));
    let (_, headers, _) = call(&app, TestRequest::get().uri(&inventory).insert_header(bearer(&admin))).await;
    let tag = tag_of(&headers);
    let receive = format!("{inventory}/receive");
    let (status, headers, received) =
        call(&app, with(TestRequest::post(), &receive, &admin, ("If-Match", &tag), Some(json!({"quantity": 5})))).await;
    assert_eq!(status, StatusCode::OK, "{received}");
    let after = tag_of(&headers);
    let (_, headers, _) = call(&app, TestRequest::get().uri(&inventory).insert_header(bearer(&admin))).await;
    assert_eq!(tag_of(&headers), after, "the answer carried the stored version");
    let (status, _, _) =
        call(&app, with(TestRequest::post(), &receive, &admin, ("If-Match", &tag), Some(json!({"quantity": 5})))).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    let (_, _, now) = call(&app, TestRequest::get().uri(&inventory).insert_header(bearer(&admin))).await;
    assert_eq!(now["data"]["quantity_on_hand"], 15, "the stale receipt changed nothing");
    t.stop().await;
}

#[actix_web::test]
async fn a_role_changes_its_tag_when_its_permissions_change() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, headers, role) = call(
        &app,
        TestRequest::post()
            .uri("/api/v1/identity/roles")
            .insert_header(bearer(&admin))
            .set_json(json!({"name": "auditor", "display_name": "Auditor", "description": "reads"})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{role}");
    let before = tag_of(&headers);
    let uri = format!("/api/v1/identity/roles/{}", role["data"]["id"].as_str().expect("id"));
    let (_, _, permissions) =
        call(&app, TestRequest::get().uri("/api/v1/identity/permissions").insert_header(bearer(&admin))).await;
    let permission = permissions["data"][0]["id"].clone();
    let grant = TestRequest::post()
        .uri(&format!("{uri}/permissions"))
        .insert_header(bearer(&admin))
        .set_json(json!({"permission_ids": [permission]}));
    let (status, _, granted) = call(&app, grant).await;
    assert_eq!(status, StatusCode::OK, "{granted}");
    let (_, headers, read) = call(&app, TestRequest::get().uri(&uri).insert_header(bearer(&admin))).await;
    assert_eq!(read["data"]["permissions_count"], 1);
    assert_ne!(tag_of(&headers), before);
    t.stop().await;
}

/// One resource of every guarded kind: read its tag, write with it (answered with the stored new tag),
/// then write with the old one (412). Every write runs in its request transaction on one connection.
#[actix_web::test]
async fn every_guarded_resource_takes_if_match() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = crate::crm_support::admin_id(&t).await;
    let (user_id, _) = tally_tests::register(&app, "someone@example.com", "password-123").await;
    let buyer =
        crate::crm_support::new_customer(&app, &admin, json!({"name": "Buyer", "email": "b@example.com"})).await;
    let buyer = buyer["id"].clone();
    let shelf = location(&app, &admin, "L-9").await;
    let now = time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).expect("time");

    let mut resources = Vec::new();
    let creations = [
        ("/api/v1/customer-mgmt/companies", json!({"name": "Acme"})),
        (
            "/api/v1/customer-mgmt/deals",
            json!({"customer_id": buyer, "assigned_to": rep, "name": "Plan", "value": 1000,
            "expected_close_date": crate::crm_support::days_from_today(30)}),
        ),
        (
            "/api/v1/customer-mgmt/interactions",
            json!({"customer_id": buyer, "type": "call", "direction": "outbound", "subject": "Intro", "started_at": now}),
        ),
        ("/api/v1/identity/contacts", json!({"type": "email", "label": "work", "email": "admin@work.example"})),
        ("/api/v1/identity/profiles", json!({"display_name": "Admin"})),
        ("/api/v1/identity/roles", json!({"name": "auditor", "display_name": "Auditor", "description": "reads"})),
        ("/api/v1/identity/permissions", json!({"resource": "reports", "action": "export", "description": "Export"})),
    ];
    for (collection, body) in creations {
        let request = TestRequest::post().uri(collection).insert_header(bearer(&admin)).set_json(body);
        let (status, _, answer) = call(&app, request).await;
        assert_eq!(status, StatusCode::CREATED, "{collection}: {answer}");
        resources.push(format!("{collection}/{}", answer["data"]["id"].as_str().expect("id")));
    }
    let writes = [
        (Method::PUT, resources[0].clone(), String::new(), json!({"name": "Acme Two"})),
        (Method::POST, resources[1].clone(), "/win".to_owned(), json!({"close_date": crate::crm_support::today()})),
        (Method::PUT, resources[2].clone(), "/content".to_owned(), json!({"subject": "Pricing"})),
        (Method::PUT, resources[3].clone(), String::new(), json!({"email": "admin@home.example"})),
        (Method::PUT, resources[4].clone(), String::new(), json!({"display_name": "Admin Two"})),
        (Method::PUT, resources[5].clone(), String::new(), json!({"display_name": "Auditor Two"})),
        (Method::PUT, resources[6].clone(), String::new(), json!({"description": "Export them all"})),
        (Method::PUT, format!("/api/v1/identity/users/{user_id}"), "/suspend".to_owned(), json!({"reason": "audit"})),
        (
            Method::POST,
            format!("/api/v1/warehouse/locations/{}", shelf["id"].as_str().expect("id")),
            "/deactivate".to_owned(),
            json!({}),
        ),
    ];
    for (method, resource, action, body) in writes {
        let read = || call(&app, TestRequest::get().uri(&resource).insert_header(bearer(&admin)));
        let (_, headers, _) = read().await;
        let before = tag_of(&headers);
        let uri = format!("{resource}{action}");
        let write = || {
            TestRequest::default()
                .method(method.clone())
                .uri(&uri)
                .insert_header(bearer(&admin))
                .insert_header(("If-Match", before.clone()))
                .set_json(body.clone())
        };
        let (status, headers, answer) = call(&app, write()).await;
        assert!(status.is_success(), "{method} {uri}: {status} {answer}");
        let (_, now_headers, _) = read().await;
        let after = tag_of(&now_headers);
        assert_ne!(after, before, "{uri}: the write changed the tag");
        if headers.contains_key("etag") {
            assert_eq!(tag_of(&headers), after, "{uri}: the answer carried the stored version");
        }
        let (status, _, refused) = call(&app, write()).await;
        assert_eq!((status, code(&refused)), (StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED"), "{uri}");
    }
    assert_eq!(postgres_toolkit::request_tx::busy_fallbacks(), 0, "no request needed a second connection");
    t.stop().await;
}

#[actix_web::test]
async fn if_match_tells_nothing_about_someone_elses_rows() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, owner) = tally_tests::register(&app, "owner@example.com", "password-123").await;
    let (_, stranger) = tally_tests::register(&app, "stranger@example.com", "password-123").await;
    let create = TestRequest::post()
        .uri("/api/v1/identity/contacts")
        .insert_header(bearer(&owner))
        .set_json(json!({"type": "email", "label": "work", "email": "owner@work.example"}));
    let (status, _, contact) = call(&app, create).await;
    assert_eq!(status, StatusCode::CREATED, "{contact}");
    let uri = format!("/api/v1/identity/contacts/{}", contact["data"]["id"].as_str().expect("id"));
    let edit = |token: &str, tag: &str| {
        with(TestRequest::put(), &uri, token, ("If-Match", tag), Some(json!({"email": "x@work.example"})))
    };
    let (plain, _, _) = call(&app, crate::crm_support::put(&uri, &stranger, json!({"email": "x@work.example"}))).await;
    for tag in ["*", "\"stale\""] {
        let (status, _, _) = call(&app, edit(&stranger, tag)).await;
        assert_eq!(status, plain, "with If-Match {tag} a stranger gets what they get without it");
    }
    let (status, _, _) = call(&app, edit(&owner, "\"stale\"")).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED, "the owner's stale tag is refused");
    t.stop().await;
}
