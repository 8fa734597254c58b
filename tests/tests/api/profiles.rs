//! Profiles through the HTTP API: one per user, reference-data checks,
//! ownership, admin moderation, the public list and events.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

const PROFILES: &str = "/api/v1/identity/profiles";
const PUBLIC: &str = "/api/v1/identity/public/profiles";

fn post(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn put(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::put().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

fn delete(uri: &str, token: &str) -> TestRequest {
    TestRequest::delete().uri(uri).insert_header(bearer(token))
}

fn id_of(body: &Value) -> String {
    body["data"]["id"].as_str().expect("an id").to_owned()
}

fn error_code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

#[actix_web::test]
async fn a_profile_is_created_once_read_updated_and_deleted() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (user_id, token) = register(&app, "ann@example.com", "password-1").await;

    let (status, _, body) = call(&app, get(&format!("{PROFILES}/me"), &token)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")), "no profile yet");

    let full = json!({
        "display_name": " Ann ",
        "first_name": "Ann",
        "last_name": "Example",
        "gender": "female",
        "date_of_birth": "1990-05-17",
        "bio": "Builds things.",
        "avatar_url": "https://img.example/ann.png",
        "timezone": "Europe/Kyiv",
        "language": "UK",
        "country": "ua",
        "website": "https://ann.example",
        "linkedin_url": "https://www.linkedin.com/in/ann",
        "twitter_url": "https://twitter.com/ann",
        "github_url": "https://github.com/ann",
    });
    let (status, _, created) = call(&app, post(PROFILES, &token, full)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let data = &created["data"];
    assert_eq!(data["user_id"], user_id.to_string());
    assert_eq!(data["display_name"], "Ann");
    assert_eq!(data["date_of_birth"], "1990-05-17");
    assert_eq!((data["language"].as_str(), data["country"].as_str()), (Some("uk"), Some("UA")));
    assert_eq!(data["timezone"], "Europe/Kyiv");
    assert_eq!(data["gender"], "female");
    assert_eq!(data["github_url"], "https://github.com/ann");
    assert_eq!(
        (
            data["is_public"].as_bool(),
            data["is_active"].as_bool(),
            data["is_banned"].as_bool(),
            data["is_verified"].as_bool()
        ),
        (Some(false), Some(true), Some(false), Some(false))
    );
    assert!(data["updated_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(data.get("deleted_at").is_none());
    let id = id_of(&created);

    let (status, _, body) = call(&app, post(PROFILES, &token, json!({"display_name": "Ann again"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("ALREADY_EXISTS")));

    let (status, _, body) = call(&app, get(&format!("{PROFILES}/me"), &token)).await;
    assert_eq!((status, body["data"]["id"].as_str()), (StatusCode::OK, Some(id.as_str())));
    let (status, _, body) = call(&app, get(&format!("{PROFILES}/{id}"), &token)).await;
    assert_eq!((status, body["data"]["id"].as_str()), (StatusCode::OK, Some(id.as_str())), "own private profile");

    // A subset of fields; an empty string clears an optional field.
    let (status, _, body) =
        call(&app, put(&format!("{PROFILES}/me"), &token, json!({"bio": "New bio", "is_public": true, "website": ""})))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["data"]["bio"].as_str(), body["data"]["is_public"].as_bool()), (Some("New bio"), Some(true)));
    assert!(body["data"]["website"].is_null());
    assert_eq!(body["data"]["display_name"], "Ann", "fields not given stay");
    let (status, _, body) =
        call(&app, put(&format!("{PROFILES}/{id}"), &token, json!({"display_name": "Ann E.", "gender": ""}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["display_name"], "Ann E.");
    assert!(body["data"]["gender"].is_null());
    let (status, _, body) =
        call(&app, put(&format!("{PROFILES}/{id}/visibility"), &token, json!({"is_public": false}))).await;
    assert_eq!((status, body["data"]["is_public"].as_bool()), (StatusCode::OK, Some(false)));
    let (status, _, body) = call(&app, put(&format!("{PROFILES}/{id}/visibility"), &token, json!({}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));
    assert!(body["error"]["details"]["is_public"].is_string());

    let (status, _, body) = call(&app, delete(&format!("{PROFILES}/{id}"), &token)).await;
    assert_eq!((status, body), (StatusCode::NO_CONTENT, Value::Null));
    let (status, _, _) = call(&app, get(&format!("{PROFILES}/{id}"), &token)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = call(&app, get(&format!("{PROFILES}/me"), &token)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = call(&app, delete(&format!("{PROFILES}/{id}"), &token)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, body) = call(&app, put(&format!("{PROFILES}/me"), &token, json!({"bio": "x"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    let (status, _, body) = call(&app, post(PROFILES, &token, json!({"display_name": "Ann anew"}))).await;
    assert_eq!(status, StatusCode::CREATED, "a deleted profile frees its place: {body}");
    t.stop().await;
}

#[actix_web::test]
async fn profile_input_and_reference_data_are_validated() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register(&app, "val@example.com", "password-1").await;
    let with = |extra: Value| {
        let mut body = json!({"display_name": "Val"});
        for (k, v) in extra.as_object().expect("object") {
            body[k] = v.clone();
        }
        body
    };
    for (body, field) in [
        (json!({"bio": "no name"}), "display_name"),
        (json!({"display_name": "   "}), "display_name"),
        (with(json!({"timezone": "Mars/Olympus_Mons"})), "timezone"),
        (with(json!({"language": "xx"})), "language"),
        (with(json!({"country": "ZZ"})), "country"),
        (with(json!({"country": "UKR"})), "country"),
        (with(json!({"bio": "b".repeat(501)})), "bio"),
        (with(json!({"website": "ftp://val.example"})), "website"),
        (with(json!({"github_url": format!("https://github.com/{}", "a".repeat(490))})), "github_url"),
        (with(json!({"gender": "robot"})), "gender"),
        (with(json!({"date_of_birth": "17.05.1990"})), "date_of_birth"),
        (with(json!({"date_of_birth": "2999-01-01"})), "date_of_birth"),
        (with(json!({"is_public": "yes"})), "is_public"),
    ] {
        let (status, _, response) = call(&app, post(PROFILES, &token, body.clone())).await;
        assert_eq!(
            (status, error_code(&response)),
            (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")),
            "{body}: {response}"
        );
        assert!(response["error"]["details"][field].is_string(), "{body}: {response}");
    }
    let (status, _, _) = call(&app, get(&format!("{PROFILES}/me"), &token)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nothing was stored");

    let (status, _, _) = call(&app, post(PROFILES, &token, json!({"display_name": "Val"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    for (body, field) in [
        (json!({"timezone": "Nowhere/City"}), "timezone"),
        (json!({"language": "zz"}), "language"),
        (json!({"country": "QQ"}), "country"),
        (json!({"display_name": ""}), "display_name"),
    ] {
        let (status, _, response) = call(&app, put(&format!("{PROFILES}/me"), &token, body.clone())).await;
        assert_eq!((status, error_code(&response)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")), "{body}");
        assert!(response["error"]["details"][field].is_string(), "{body}: {response}");
    }
    let (status, _, body) = call(&app, TestRequest::get().uri(&format!("{PROFILES}/me"))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED")));
    t.stop().await;
}

#[actix_web::test]
async fn owners_change_their_profile_and_admins_moderate() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, ann) = register(&app, "ann@example.com", "password-1").await;
    let (_, bob) = register(&app, "bob@example.com", "password-1").await;
    let (_, _, created) = call(&app, post(PROFILES, &ann, json!({"display_name": "Ann"}))).await;
    let id = id_of(&created);
    let uri = format!("{PROFILES}/{id}");
    let missing = format!("{PROFILES}/{}", uuid::Uuid::now_v7());

    // Private: invisible to Bob; never changeable by him.
    let (status, _, body) = call(&app, get(&uri, &bob)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    for request in [
        put(&uri, &bob, json!({"bio": "hijacked"})),
        put(&format!("{uri}/visibility"), &bob, json!({"is_public": true})),
        delete(&uri, &bob),
    ] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{body}");
    }
    for request in [get(&missing, &ann), put(&missing, &ann, json!({"bio": "x"})), delete(&missing, &ann)] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")));
    }

    // Public: Bob may read it.
    let (status, _, _) = call(&app, put(&format!("{uri}/visibility"), &ann, json!({"is_public": true}))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) = call(&app, get(&uri, &bob)).await;
    assert_eq!((status, body["data"]["bio"].clone()), (StatusCode::OK, Value::Null), "and Bob changed nothing");

    // Moderation is for admins only.
    for action in ["verify", "ban"] {
        for token in [&ann, &bob] {
            let (status, _, body) = call(&app, put(&format!("{uri}/{action}"), token, json!({}))).await;
            assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{action}");
        }
    }
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, _, body) = call(&app, put(&format!("{uri}/verify"), &admin, json!({}))).await;
    assert_eq!((status, body["data"]["is_verified"].as_bool()), (StatusCode::OK, Some(true)), "{body}");
    let (status, _, body) = call(&app, put(&format!("{uri}/ban"), &admin, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["data"]["is_banned"].as_bool(), body["data"]["is_verified"].as_bool()), (Some(true), Some(true)));
    let (status, _, _) = call(&app, put(&format!("{uri}/ban"), &admin, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "banning twice changes nothing");
    let (status, _, _) = call(&app, put(&format!("{missing}/verify"), &admin, json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Banned: hidden from others, still the owner's.
    let (status, _, _) = call(&app, get(&uri, &bob)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, body) = call(&app, get(&uri, &ann)).await;
    assert_eq!((status, body["data"]["is_banned"].as_bool()), (StatusCode::OK, Some(true)));

    // Events through the outbox: one per change, none for the repeated ban.
    let (_, _, events) = call(&app, get(&format!("/api/v1/events?aggregate_id={id}"), &admin)).await;
    let events = events["data"].as_array().expect("events").clone();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    for name in
        ["identity.profile.created", "identity.profile.updated", "identity.profile.verified", "identity.profile.banned"]
    {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    assert_eq!(names.iter().filter(|n| **n == "identity.profile.banned").count(), 1);
    assert!(events.iter().all(|e| e["data"]["profile_id"] == id.as_str() && e["data"]["user_id"].is_string()));
    t.stop().await;
}

#[actix_web::test]
async fn the_public_list_shows_public_active_unbanned_profiles_without_a_token() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let mut ids = Vec::new();
    for (name, public) in [("first", true), ("hidden", false), ("banned", true), ("last", true)] {
        let (_, token) = register(&app, &format!("{name}@example.com"), "password-1").await;
        let (status, _, body) =
            call(&app, post(PROFILES, &token, json!({"display_name": name, "is_public": public}))).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        ids.push(id_of(&body));
    }
    let (status, _, _) = call(&app, put(&format!("{PROFILES}/{}/ban", ids[2]), &admin, json!({}))).await;
    assert_eq!(status, StatusCode::OK);

    let (status, _, body) = call(&app, TestRequest::get().uri(PUBLIC)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let listed: Vec<&str> = body["data"].as_array().expect("array").iter().filter_map(|p| p["id"].as_str()).collect();
    assert_eq!(listed, vec![ids[3].as_str(), ids[0].as_str()], "newest first, only public and unbanned");
    assert_eq!(
        body["pagination"],
        json!({"total": 2, "total_exact": true, "page": 1, "page_size": 20, "total_pages": 1})
    );
    assert_eq!(body["data"][0]["display_name"], "last");

    let (_, _, body) = call(&app, TestRequest::get().uri(&format!("{PUBLIC}?page=2&page_size=1"))).await;
    assert_eq!(body["data"][0]["id"], ids[0].as_str());
    assert_eq!(body["pagination"]["total_pages"], 2);
    let (status, _, body) = call(&app, TestRequest::get().uri(&format!("{PUBLIC}?page_size=101"))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));
    t.stop().await;
}

#[actix_web::test]
async fn contact_and_profile_endpoints_are_in_the_openapi_document() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, _, doc) = call(&app, TestRequest::get().uri("/api/v1/openapi.json")).await;
    assert_eq!(status, StatusCode::OK);
    for (path, methods) in [
        ("/api/v1/identity/contacts", &["get", "post"][..]),
        ("/api/v1/identity/contacts/{id}", &["get", "put", "delete"][..]),
        ("/api/v1/identity/contacts/{id}/verify", &["post", "put"][..]),
        ("/api/v1/identity/contacts/{id}/primary", &["put"][..]),
        ("/api/v1/identity/profiles", &["post"][..]),
        ("/api/v1/identity/profiles/me", &["get", "put"][..]),
        ("/api/v1/identity/profiles/{id}", &["get", "put", "delete"][..]),
        ("/api/v1/identity/profiles/{id}/visibility", &["put"][..]),
        ("/api/v1/identity/profiles/{id}/verify", &["put"][..]),
        ("/api/v1/identity/profiles/{id}/ban", &["put"][..]),
        ("/api/v1/identity/public/profiles", &["get"][..]),
    ] {
        for method in methods {
            assert!(doc["paths"][path][method].is_object(), "{method} {path} is not documented");
        }
    }
    let params = doc["paths"]["/api/v1/identity/contacts"]["get"]["parameters"].as_array().expect("parameters");
    assert!(params.iter().any(|p| p["name"] == "type"), "{params:?}");
    assert_eq!(doc["paths"][PUBLIC]["get"]["security"], json!([]), "the public list opts out of the token");
    t.stop().await;
}
