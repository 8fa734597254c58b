//! Contexts meet through contracts: one email rule for identity and customer management, and the
//! `identity.user.registered` payload read as the shared contract. Every address registration accepts
//! becomes a customer, with no dead letter on the way; every address it refuses, customer management
//! refuses too.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use event_contracts::identity::UserRegistered;
use serde_json::{json, Value};
use shared_kernel::EventEnvelope;
use tally_tests::{call, login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::crm_support::{code, expect, get, keys_of, post, reject, wait_for, BASE};

/// (what the user types, what is stored): unusual but valid addresses.
const ACCEPTED: [(&str, &str); 10] = [
    ("a@b.c", "a@b.c"),
    ("josé@exämple.com", "josé@exämple.com"),
    ("first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk"),
    ("UPPER.CASE@EXAMPLE.ORG", "upper.case@example.org"),
    ("ÅSA.ÖBERG@FÖRETAG.SE", "åsa.öberg@företag.se"),
    ("  spaced@example.com  ", "spaced@example.com"),
    ("\tTabbed+Mixed@Example.Net\n", "tabbed+mixed@example.net"),
    ("o'neil@example.ie", "o'neil@example.ie"),
    ("用户@例子.广告", "用户@例子.广告"),
    ("user@123.example", "user@123.example"),
];

/// Not addresses at all: refused by registration and by customer management alike.
const REFUSED: [&str; 8] = [
    "not-an-email",
    "a@b",
    "a b@example.com",
    "a@@example.com",
    ".a@example.com",
    "a@-b.com",
    "a@b_c.com",
    "@example.com",
];

const REGISTER: &str = "/api/v1/identity/users/register";
const DEAD_LETTERS: &str = "/api/v1/events/dead-letters";

/// `text` as one path segment: everything but unreserved ASCII percent-encoded.
fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'@' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn registration(email: &str) -> TestRequest {
    TestRequest::post()
        .uri(REGISTER)
        .set_json(json!({"email": email, "name": "Unusual Address", "password": "password-1"}))
}

/// The dead letters recorded so far.
async fn dead_letters<S, B>(app: &S, admin: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, body) = call(app, get(DEAD_LETTERS, admin)).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    body
}

#[actix_web::test]
async fn every_address_registration_accepts_becomes_a_customer() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;

    let mut users: Vec<(Uuid, &str)> = Vec::new();
    for (typed, stored) in ACCEPTED {
        let (status, _, body) = call(&app, registration(typed)).await;
        assert_eq!(status.as_u16(), 201, "{typed:?}: {body}");
        assert_eq!(body["data"]["user"]["email"], stored, "{typed:?} is stored normalised");
        let id = body["data"]["user"]["id"].as_str().and_then(|s| Uuid::parse_str(s).ok()).expect("user id");
        users.push((id, stored));
    }

    // Poll until every user is a customer; a dead letter means the subscriber refused one: fail at once.
    let (app, admin) = (&app, admin.as_str());
    let users = &users;
    wait_for("every registered user becomes a customer", || async move {
        let letters = dead_letters(app, admin).await;
        assert_eq!(letters["pagination"]["total"], 0, "no dead letter: {letters}");
        for (user, email) in users {
            let (status, _, body) = call(app, get(&format!("{BASE}/customers/email/{}", segment(email)), admin)).await;
            if status.as_u16() != 200 || body["data"]["user_id"] != json!(user) {
                return false;
            }
        }
        true
    })
    .await;
    for (user, email) in users {
        let customer = expect(app, 200, get(&format!("{BASE}/customers/email/{}", segment(email)), admin)).await;
        assert_eq!((customer["email"].as_str(), customer["user_id"].clone()), (Some(*email), json!(user)));
        assert_eq!((customer["status"].as_str(), customer["source"].as_str()), (Some("lead"), Some("website")));
    }
    let letters = dead_letters(app, admin).await;
    assert_eq!((letters["pagination"]["total"].clone(), letters["data"].clone()), (json!(0), json!([])), "{letters}");

    // On the wire the registration event is `{user_id, email, name}`, read back as the shared contract.
    for (user, email) in users {
        let query = format!("/api/v1/events?aggregate_id={user}&name=identity.user.registered");
        let recorded = expect(app, 200, get(&query, admin)).await;
        let event: EventEnvelope = serde_json::from_value(recorded[0].clone()).expect("an envelope");
        let mut keys = keys_of(&event.data);
        keys.sort_unstable();
        assert_eq!(keys, ["email", "name", "user_id"]);
        let payload: UserRegistered = event.payload().expect("the contract reads it");
        assert_eq!(
            (payload.user_id, payload.email.as_str(), payload.name.as_str()),
            (*user, *email, "Unusual Address")
        );
    }
    t.stop().await;
}

#[actix_web::test]
async fn registration_and_customers_refuse_the_same_addresses() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for bad in REFUSED {
        let (status, _, body) = call(&app, registration(bad)).await;
        assert_eq!((status.as_u16(), code(&body)), (400, "INVALID_EMAIL"), "{bad:?}: {body}");
        assert!(body["error"]["details"]["email"].is_string(), "{bad:?}: {body}");
        let error = reject(
            &app,
            400,
            "INVALID_EMAIL",
            post(&format!("{BASE}/customers"), &admin, json!({"name": "X", "email": bad})),
        )
        .await;
        assert!(error["details"]["email"].is_string(), "{bad:?}: {error}");
        reject(&app, 400, "INVALID_EMAIL", get(&format!("{BASE}/customers/email/{}", segment(bad)), &admin)).await;
    }
    // And customer management takes every address registration takes.
    for (typed, stored) in ACCEPTED {
        let created =
            expect(&app, 201, post(&format!("{BASE}/customers"), &admin, json!({"name": "X", "email": typed}))).await;
        assert_eq!(created["email"], stored, "{typed:?}");
    }
    t.stop().await;
}
