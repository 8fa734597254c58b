//! The real app, started against a test database.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use actix_web::web;
use api::startup::{start_services, Services};
use api::{AppState, Settings};
use shared_kernel::ports::EventHandler;

use crate::TestDb;

/// 32+ bytes, used only by tests.
pub const TEST_JWT_SECRET: &str = "test-secret-test-secret-test-secret-0123";
/// The admin every test app starts with.
pub const ADMIN_EMAIL: &str = "admin@tally.test";
pub const ADMIN_PASSWORD: &str = "admin-password-1";

/// What to vary per test; everything else uses the decided defaults.
pub struct TestOptions {
    /// Extra environment, as `tally` would read it.
    pub env: Vec<(&'static str, String)>,
    pub handlers: Vec<Arc<dyn EventHandler>>,
}

impl Default for TestOptions {
    fn default() -> Self {
        Self {
            env: vec![
                ("BUS_RETRY_DELAY", "10ms".to_owned()),
                ("BUS_RETRY_MAX_DELAY", "100ms".to_owned()),
                ("BCRYPT_COST", "4".to_owned()),
                ("DATABASE_POOL_SIZE", "8".to_owned()),
                ("LOG_FORMAT", "json".to_owned()),
                ("ADMIN_EMAIL", ADMIN_EMAIL.to_owned()),
                ("ADMIN_PASSWORD", ADMIN_PASSWORD.to_owned()),
                ("RATE_LIMIT_ENABLED", "false".to_owned()),
            ],
            handlers: Vec::new(),
        }
    }
}

impl TestOptions {
    pub fn with_env(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.env.retain(|(n, _)| *n != name);
        self.env.push((name, value.into()));
        self
    }

    pub fn with_handler(mut self, handler: Arc<dyn EventHandler>) -> Self {
        self.handlers.push(handler);
        self
    }
}

/// A started service set on a private database. Call `stop` at the end to
/// flush the relay and stop the bus before the database goes away.
pub struct TestApp {
    pub services: Option<Services>,
    pub state: web::Data<AppState>,
    pub db: TestDb,
}

pub fn settings_for(db_url: &str, env: &[(&'static str, String)]) -> Settings {
    let mut map: HashMap<String, String> = HashMap::new();
    map.insert("DATABASE_URL".into(), db_url.to_owned());
    map.insert("JWT_SECRET".into(), TEST_JWT_SECRET.into());
    for (name, value) in env {
        map.insert((*name).to_owned(), value.clone());
    }
    Settings::from_lookup(&move |name| map.get(name).cloned()).expect("test settings are valid")
}

impl TestApp {
    pub async fn start() -> Self {
        Self::start_with(TestOptions::default()).await
    }

    pub async fn start_with(options: TestOptions) -> Self {
        let db = TestDb::new().await;
        let settings = settings_for(&db.url, &options.env);
        let services = start_services(settings, options.handlers).await.expect("services start");
        let state = services.state.clone();
        Self { services: Some(services), state, db }
    }

    /// Another instance (or the same one after a restart) on this test's
    /// database, with `options`; stop it before the database goes away.
    pub async fn instance(&self, options: TestOptions) -> Services {
        start_services(settings_for(&self.db.url, &options.env), options.handlers).await.expect("services start")
    }

    /// Stops this instance's services and starts fresh ones on the same
    /// database: nothing kept in memory survives, as after a process restart.
    pub async fn restart(&mut self, options: TestOptions) {
        if let Some(services) = self.services.take() {
            services.shutdown().await;
        }
        let services = self.instance(options).await;
        self.state = services.state.clone();
        self.services = Some(services);
    }

    pub async fn stop(mut self) {
        if let Some(services) = self.services.take() {
            services.shutdown().await;
        }
    }
}

/// Sends `request` to `app`; returns the status, headers and JSON body
/// (`Null` for an empty or non-JSON body).
pub async fn call<S, B>(
    app: &S,
    request: TestRequest,
) -> (StatusCode, actix_web::http::header::HeaderMap, serde_json::Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let response = match app.call(request.to_request()).await {
        Ok(response) => response,
        Err(error) => {
            let response = error.error_response();
            let status = response.status();
            let headers = response.headers().clone();
            let bytes = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_default();
            return (status, headers, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null));
        }
    };
    let status = response.status();
    let headers = response.headers().clone();
    let body = body_json(response).await;
    (status, headers, body)
}

pub async fn body_json<B: MessageBody>(response: ServiceResponse<B>) -> serde_json::Value {
    let bytes = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)
}

/// Logs in through the API; returns the access token.
pub async fn login<S, B>(app: &S, email: &str, password: &str) -> String
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let request = TestRequest::post()
        .uri("/api/v1/identity/users/login")
        .set_json(serde_json::json!({ "email": email, "password": password }));
    let (status, _, body) = call(app, request).await;
    assert_eq!(status, StatusCode::OK, "login of {email} failed: {body}");
    body["data"]["access_token"].as_str().expect("access token").to_owned()
}

/// Registers a user through the API; returns (user id, access token).
pub async fn register<S, B>(app: &S, email: &str, password: &str) -> (uuid::Uuid, String)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let request = TestRequest::post()
        .uri("/api/v1/identity/users/register")
        .set_json(serde_json::json!({ "email": email, "name": "Test User", "password": password }));
    let (status, _, body) = call(app, request).await;
    assert_eq!(status, StatusCode::CREATED, "register of {email} failed: {body}");
    let id = body["data"]["user"]["id"].as_str().and_then(|s| uuid::Uuid::parse_str(s).ok()).expect("user id");
    (id, body["data"]["access_token"].as_str().expect("access token").to_owned())
}

pub fn bearer(token: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {token}"))
}

/// The seeded `staff` role's id (docs/identity.md).
pub const STAFF_ROLE_ID: &str = "01900000-0000-7000-8000-000000000006";

/// Registers a user and has the admin grant it `staff`, the working role a
/// self-registered account lacks; returns (user id, access token).
pub async fn register_staff<S, B>(app: &S, email: &str, password: &str) -> (uuid::Uuid, String)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (id, token) = register(app, email, password).await;
    let admin = login(app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let request = TestRequest::post()
        .uri(&format!("/api/v1/identity/users/{id}/roles"))
        .insert_header(bearer(&admin))
        .set_json(serde_json::json!({ "role_id": STAFF_ROLE_ID }));
    let (status, _, body) = call(app, request).await;
    assert_eq!(status, StatusCode::OK, "granting staff to {email} failed: {body}");
    (id, token)
}
