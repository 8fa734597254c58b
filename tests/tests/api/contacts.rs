//! Contacts through the HTTP API: values per type, ownership, primaries
//! (also under concurrency), verification and their events.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

const CONTACTS: &str = "/api/v1/identity/contacts";

fn post(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn put(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::put().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

fn id_of(body: &Value) -> String {
    body["data"]["id"].as_str().expect("an id").to_owned()
}

fn error_code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

#[actix_web::test]
async fn contacts_of_each_type_are_created_read_updated_and_deleted() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (user_id, token) = register(&app, "ann@example.com", "password-1").await;

    let (status, _, email) =
        call(&app, post(CONTACTS, &token, json!({"type": "email", "label": " work ", "email": " Ann@Work.Example "})))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{email}");
    let data = &email["data"];
    assert_eq!(data["type"], "email");
    assert_eq!(data["email"], "ann@work.example");
    assert_eq!(data["label"], "work");
    assert_eq!(data["user_id"], user_id.to_string());
    assert_eq!((data["is_primary"].as_bool(), data["is_verified"].as_bool()), (Some(false), Some(false)));
    assert_eq!(data["is_public"], false);
    assert!(data["phone"].is_null() && data["address"].is_null());
    assert!(data["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(data.get("deleted_at").is_none());
    let email_id = id_of(&email);

    let (status, _, phone) = call(
        &app,
        post(
            CONTACTS,
            &token,
            json!({"type": "phone", "label": "mobile", "phone": "+380 44 123 4567", "is_public": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{phone}");
    assert_eq!(phone["data"]["phone"], "+380441234567", "stored in E.164");
    assert_eq!(phone["data"]["is_public"], true);
    let phone_id = id_of(&phone);

    let address_body = json!({
        "type": "address",
        "label": "home",
        "is_primary": true,
        "address": {"street": "Khreshchatyk 1", "city": "Kyiv", "postal_code": "01001", "country": "ua"},
    });
    let (status, _, address) = call(&app, post(CONTACTS, &token, address_body)).await;
    assert_eq!(status, StatusCode::CREATED, "{address}");
    assert_eq!(address["data"]["address"]["country"], "UA");
    assert_eq!(address["data"]["address"]["city"], "Kyiv");
    assert!(address["data"]["address"]["state"].is_null());
    assert_eq!(address["data"]["is_primary"], true);
    let address_id = id_of(&address);

    // Read one, list all (newest first) and filter.
    let (status, _, body) = call(&app, get(&format!("{CONTACTS}/{phone_id}"), &token)).await;
    assert_eq!((status, body["data"]["phone"].as_str()), (StatusCode::OK, Some("+380441234567")));
    let (status, _, body) = call(&app, get(CONTACTS, &token)).await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = body["data"].as_array().expect("array").iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(ids, vec![address_id.as_str(), phone_id.as_str(), email_id.as_str()]);
    let (_, _, body) = call(&app, get(&format!("{CONTACTS}?type=phone"), &token)).await;
    assert_eq!(body["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(body["data"][0]["id"], phone_id.as_str());
    let (_, _, body) = call(&app, get(&format!("{CONTACTS}?is_primary=true"), &token)).await;
    assert_eq!(body["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(body["data"][0]["id"], address_id.as_str());
    let (_, _, body) = call(&app, get(&format!("{CONTACTS}?type=email&is_primary=false"), &token)).await;
    assert_eq!(body["data"][0]["id"], email_id.as_str());
    let (status, _, body) = call(&app, get(&format!("{CONTACTS}?type=fax"), &token)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));

    // Update: label, flags and the value of the contact's own type.
    let (status, _, body) = call(
        &app,
        put(
            &format!("{CONTACTS}/{email_id}"),
            &token,
            json!({"type": "email", "label": "personal", "email": "ANN@home.example", "is_public": true}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["data"]["label"].as_str(), body["data"]["email"].as_str(), body["data"]["is_public"].as_bool()),
        (Some("personal"), Some("ann@home.example"), Some(true))
    );
    let (status, _, body) = call(
        &app,
        put(&format!("{CONTACTS}/{address_id}"), &token, json!({"address": {"city": "Lviv", "country": "UA"}})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["address"]["city"], "Lviv");
    assert!(body["data"]["address"]["street"].is_null(), "an address is replaced as a whole");
    assert_eq!(body["data"]["label"], "home", "fields not given stay");
    let (status, _, body) =
        call(&app, put(&format!("{CONTACTS}/{phone_id}"), &token, json!({"phone": "+1 201 555 0123"}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["phone"], "+12015550123");

    // The type cannot change, nor can another type's value be set.
    for (body, field) in [
        (json!({"type": "phone"}), "type"),
        (json!({"type": "fax"}), "type"),
        (json!({"phone": "+380441234567"}), "phone"),
        (json!({"address": {"country": "UA"}}), "address"),
    ] {
        let (status, _, response) = call(&app, put(&format!("{CONTACTS}/{email_id}"), &token, body.clone())).await;
        assert_eq!((status, error_code(&response)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")), "{body}");
        assert!(response["error"]["details"][field].is_string(), "{body}: {response}");
    }
    let (status, _, body) = call(&app, put(&format!("{CONTACTS}/{email_id}"), &token, json!({"email": "nope"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("INVALID_EMAIL")));
    let (status, _, body) = call(&app, put(&format!("{CONTACTS}/{phone_id}"), &token, json!({"phone": "12345"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("INVALID_PHONE")));

    // Soft delete: gone from reads and lists, a second delete is 404.
    let delete = || TestRequest::delete().uri(&format!("{CONTACTS}/{phone_id}")).insert_header(bearer(&token));
    let (status, _, body) = call(&app, delete()).await;
    assert_eq!((status, body), (StatusCode::NO_CONTENT, Value::Null));
    let (status, _, body) = call(&app, get(&format!("{CONTACTS}/{phone_id}"), &token)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    let (status, _, body) = call(&app, delete()).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    let (_, _, body) = call(&app, get(CONTACTS, &token)).await;
    assert_eq!(body["data"].as_array().map(Vec::len), Some(2));
    let (status, _, body) = call(&app, put(&format!("{CONTACTS}/{phone_id}/primary"), &token, json!({}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    t.stop().await;
}

#[actix_web::test]
async fn contact_input_is_validated() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register(&app, "val@example.com", "password-1").await;
    for (body, code, field) in [
        (json!({"type": "email", "email": "not-an-email"}), "INVALID_EMAIL", "email"),
        (json!({"type": "phone", "phone": "0441234567"}), "INVALID_PHONE", "phone"),
        (json!({"type": "phone", "phone": "+1234"}), "INVALID_PHONE", "phone"),
        (json!({"type": "phone", "phone": "+380 abc"}), "INVALID_PHONE", "phone"),
        (
            json!({"type": "address", "address": {"city": "Nowhere", "country": "ZZ"}}),
            "VALIDATION_ERROR",
            "address.country",
        ),
        (json!({"type": "address", "address": {"country": "UKR"}}), "VALIDATION_ERROR", "address.country"),
        (json!({"type": "address", "address": {"city": "Kyiv"}}), "VALIDATION_ERROR", "address.country"),
        (
            json!({"type": "address", "address": {"country": "UA", "postal_code": "1".repeat(21)}}),
            "VALIDATION_ERROR",
            "address.postal_code",
        ),
        (json!({"type": "email"}), "VALIDATION_ERROR", "email"),
        (json!({"type": "phone", "email": "a@example.com"}), "VALIDATION_ERROR", "email"),
        (json!({"type": "email", "email": "a@example.com", "phone": "+380441234567"}), "VALIDATION_ERROR", "phone"),
        (json!({"type": "address"}), "VALIDATION_ERROR", "address"),
        (json!({"type": "fax", "email": "a@example.com"}), "VALIDATION_ERROR", "type"),
        (json!({"email": "a@example.com"}), "VALIDATION_ERROR", "type"),
        (json!({"type": "email", "email": "a@example.com", "label": "l".repeat(101)}), "VALIDATION_ERROR", "label"),
        (json!({"type": "email", "email": "a@example.com", "is_primary": "yes"}), "VALIDATION_ERROR", "is_primary"),
    ] {
        let (status, _, response) = call(&app, post(CONTACTS, &token, body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {response}");
        assert_eq!(error_code(&response), Some(code), "{body}: {response}");
        assert!(response["error"]["details"][field].is_string(), "{body}: {response}");
    }
    let (_, _, body) = call(&app, get(CONTACTS, &token)).await;
    assert_eq!(body["data"], json!([]), "nothing was stored");

    let (status, _, body) = call(&app, TestRequest::get().uri(CONTACTS)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED")));
    let (status, _, body) = call(&app, get(&format!("{CONTACTS}/not-a-uuid"), &token)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("INVALID_UUID")));
    t.stop().await;
}

#[actix_web::test]
async fn another_users_contact_is_not_found() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, ann) = register(&app, "ann@example.com", "password-1").await;
    let (_, bob) = register(&app, "bob@example.com", "password-1").await;
    let (_, _, created) =
        call(&app, post(CONTACTS, &ann, json!({"type": "email", "email": "ann@home.example", "is_primary": true})))
            .await;
    let id = id_of(&created);
    let uri = format!("{CONTACTS}/{id}");
    for request in [
        get(&uri, &bob),
        put(&uri, &bob, json!({"label": "mine now"})),
        TestRequest::delete().uri(&uri).insert_header(bearer(&bob)),
        post(&format!("{uri}/verify"), &bob, json!({})),
        put(&format!("{uri}/verify"), &bob, json!({})),
        put(&format!("{uri}/primary"), &bob, json!({})),
    ] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")), "{body}");
    }
    let (_, _, body) = call(&app, get(CONTACTS, &bob)).await;
    assert_eq!(body["data"], json!([]));
    let (status, _, body) = call(&app, get(&uri, &ann)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (body["data"]["label"].as_str(), body["data"]["is_verified"].as_bool(), body["data"]["is_primary"].as_bool()),
        (Some(""), Some(false), Some(true)),
        "bob changed nothing"
    );
    t.stop().await;
}

#[actix_web::test]
async fn one_primary_per_type_verification_and_events() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (user_id, token) = register(&app, "pri@example.com", "password-1").await;
    let create = |email: &str, primary: bool| {
        post(CONTACTS, &token, json!({"type": "email", "email": email, "is_primary": primary}))
    };
    let (_, _, first) = call(&app, create("one@example.com", true)).await;
    let first = id_of(&first);
    let (_, _, phone) =
        call(&app, post(CONTACTS, &token, json!({"type": "phone", "phone": "+380441234567", "is_primary": true})))
            .await;
    let phone = id_of(&phone);
    let (status, _, second) = call(&app, create("two@example.com", true)).await;
    assert_eq!(status, StatusCode::CREATED);
    let second = id_of(&second);
    let primaries = |kind: &'static str| {
        let uri = format!("{CONTACTS}?type={kind}&is_primary=true");
        let request = get(&uri, &token);
        let app = &app;
        async move {
            let (_, _, body) = call(app, request).await;
            body["data"]
                .as_array()
                .expect("array")
                .iter()
                .map(|c| c["id"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(primaries("email").await, vec![second.clone()], "creating a primary un-marks the old one");
    assert_eq!(primaries("phone").await, vec![phone.clone()], "other types keep theirs");

    let (status, _, body) = call(&app, put(&format!("{CONTACTS}/{first}/primary"), &token, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["data"]["id"].as_str(), body["data"]["is_primary"].as_bool()), (Some(first.as_str()), Some(true)));
    assert_eq!(primaries("email").await, vec![first.clone()]);
    let (status, _, _) = call(&app, put(&format!("{CONTACTS}/{first}/primary"), &token, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "setting the primary again is fine");
    assert_eq!(primaries("email").await, vec![first.clone()]);

    let (status, _, body) = call(&app, put(&format!("{CONTACTS}/{second}"), &token, json!({"is_primary": true}))).await;
    assert_eq!((status, body["data"]["is_primary"].as_bool()), (StatusCode::OK, Some(true)));
    assert_eq!(primaries("email").await, vec![second.clone()]);
    let (_, _, body) = call(&app, put(&format!("{CONTACTS}/{second}"), &token, json!({"is_primary": false}))).await;
    assert_eq!(body["data"]["is_primary"], false);
    assert!(primaries("email").await.is_empty());

    // Verification: POST, and PUT as the variant; the code is optional.
    let (status, _, body) =
        call(&app, post(&format!("{CONTACTS}/{first}/verify"), &token, json!({"verification_code": "123456"}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["message"].is_string());
    assert_eq!(body["data"]["contact"]["is_verified"], true);
    let (status, _, body) =
        call(&app, TestRequest::put().uri(&format!("{CONTACTS}/{phone}/verify")).insert_header(bearer(&token))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["message"].is_string());
    let (_, _, body) = call(&app, get(&format!("{CONTACTS}/{phone}"), &token)).await;
    assert_eq!(body["data"]["is_verified"], true);

    let (status, _, _) =
        call(&app, TestRequest::delete().uri(&format!("{CONTACTS}/{first}")).insert_header(bearer(&token))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);

    // Every change went through the outbox, named and attributed.
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, _, events) = call(&app, get(&format!("/api/v1/events?aggregate_id={first}"), &admin)).await;
    let events = events["data"].as_array().expect("events").clone();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    for name in [
        "identity.contact.created",
        "identity.contact.updated",
        "identity.contact.verified",
        "identity.contact.deleted",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    assert!(events.iter().all(|e| e["data"]["contact_id"] == first.as_str()
        && e["data"]["user_id"] == user_id.to_string()
        && e["aggregate_id"] == first.as_str()));
    t.stop().await;
}

#[actix_web::test]
async fn concurrent_primary_switches_leave_exactly_one_primary() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register(&app, "race@example.com", "password-1").await;
    let mut ids = Vec::new();
    for i in 0..20 {
        let body = json!({"type": "email", "email": format!("race{i}@example.com"), "is_primary": i == 0});
        let (status, _, created) = call(&app, post(CONTACTS, &token, body)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        ids.push(id_of(&created));
    }
    let switches = ids
        .iter()
        .map(|id| call(&app, put(&format!("{CONTACTS}/{id}/primary"), &token, json!({}))))
        .collect::<Vec<_>>();
    let results = futures_util::future::join_all(switches).await;
    for (status, _, body) in &results {
        assert_eq!(*status, StatusCode::OK, "every switch succeeds: {body}");
    }
    let (_, _, body) = call(&app, get(&format!("{CONTACTS}?is_primary=true"), &token)).await;
    let primaries = body["data"].as_array().expect("array");
    assert_eq!(primaries.len(), 1, "exactly one primary: {body}");
    assert!(ids.iter().any(|id| primaries[0]["id"] == id.as_str()));
    t.stop().await;
}
