//! The application: shared state and the actix `App` with every route.

use std::sync::Arc;

use actix_cors::Cors;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, AUTHORIZATION, CONTENT_TYPE};
use actix_web::{middleware, web, App};
use identity_domain::ports::UserRepository;
use identity_postgres::PgUserRepository;
use postgres_toolkit::events::{OutboxSignal, PgDeadLetterStore};
use postgres_toolkit::DbPool;
use shared_kernel::ports::{EventBus, KeyValueStore};
use utoipa_swagger_ui::SwaggerUi;

use crate::auth::cache::AccessCache;
use crate::auth::live::{LiveAuth, LiveRevocations};
use crate::auth::TokenService;
use crate::config::Settings;
use crate::http::extract::{path_error, query_error, MAX_BODY_BYTES};
use crate::http::middleware::observe;
use crate::http::rate_limit::{InProcessLimiter, RedisLimiter, SharedLimiter, TrustedProxies};
use crate::http::ApiError;
use crate::metrics::Metrics;
use crate::routes;

/// Everything a handler may need; cheap to clone (all handles).
pub struct AppState {
    pub settings: Arc<Settings>,
    /// The connections requests use.
    pub pool: DbPool,
    /// The connections event work uses (relay, handlers, webhook queue), so a burst of events never
    /// makes requests wait for a connection (`DATABASE_EVENT_POOL_SIZE`).
    pub event_pool: DbPool,
    pub kv: Arc<dyn KeyValueStore>,
    pub bus: Arc<dyn EventBus>,
    /// Wakes the outbox relay after a commit that recorded events.
    pub outbox: OutboxSignal,
    pub dead_letters: PgDeadLetterStore,
    pub metrics: Arc<Metrics>,
    pub identity: IdentityServices,
    /// Order and warehouse adapters.
    pub commerce: crate::commerce::CommerceServices,
    /// Customer-management repositories.
    pub crm: routes::crm::CrmServices,
    /// Webhook endpoints and their delivery log.
    pub webhooks: routes::webhooks::WebhookServices,
    /// The health endpoints' shared probe, on a connection of its own.
    pub health: routes::health::HealthProbe,
    /// Import jobs, on connections of their own (docs/imports-and-exports.md).
    pub imports: import_postgres::ImportStore,
    /// Wakes this instance's import runner when an upload is queued.
    pub import_runner: crate::imports::RunnerSignal,
}

/// Identity adapters shared by the auth guard and the identity routes.
#[derive(Clone)]
pub struct IdentityServices {
    pub tokens: TokenService,
    pub users: Arc<dyn UserRepository>,
    pub roles: Arc<dyn identity_domain::roles::RoleRepository>,
    pub contacts: Arc<dyn identity_domain::contact::ContactRepository>,
    pub profiles: Arc<dyn identity_domain::profile::ProfileRepository>,
    /// Service credentials (docs/identity.md).
    pub api_keys: Arc<dyn identity_domain::api_key::ApiKeyRepository>,
    pub access: AccessCache,
    /// Revocations and access profiles in memory while the database's
    /// `tally_auth` listener is connected (PostgreSQL revocations only).
    pub live: Arc<LiveAuth>,
    /// Revoked tokens and refresh-token families.
    pub revocations: Arc<dyn identity_domain::TokenRevocations>,
    /// `None` when `RATE_LIMIT_ENABLED=false`.
    pub rate_limiter: Option<SharedLimiter>,
    pub trusted_proxies: TrustedProxies,
    /// The identity use cases, over the adapters above.
    pub app: identity_domain::application::IdentityApplication,
}

impl IdentityServices {
    pub fn new(settings: &Settings, pool: &DbPool, kv: Arc<dyn KeyValueStore>) -> Self {
        let users: Arc<dyn UserRepository> = Arc::new(PgUserRepository::new(pool.clone()));
        let live = Arc::new(LiveAuth::default());
        // Redis when configured (shared by instances), otherwise PostgreSQL,
        // so a restart never brings a revoked token back.
        let revocations: Arc<dyn identity_domain::TokenRevocations> = match settings.redis_url {
            Some(_) => Arc::new(identity_postgres::KvTokenRevocations::new(kv.clone())),
            None => Arc::new(LiveRevocations::new(
                Arc::new(identity_postgres::PgTokenRevocations::new(pool.clone())),
                live.clone(),
            )),
        };
        let access = AccessCache::new(kv, settings.redis_url.is_some(), users.clone(), live.clone());
        let ports = identity_domain::application::IdentityPorts {
            users,
            roles: Arc::new(identity_postgres::PgRoleRepository::new(pool.clone())),
            contacts: Arc::new(identity_postgres::PgContactRepository::new(pool.clone())),
            profiles: Arc::new(identity_postgres::PgProfileRepository::new(pool.clone())),
            api_keys: Arc::new(identity_postgres::PgApiKeyRepository::new(pool.clone())),
            revocations,
            hasher: Arc::new(crate::auth::passwords::BcryptHasher::new(settings.bcrypt_cost)),
            access: Arc::new(access.clone()),
            secrets: Arc::new(crate::auth::api_keys::RandomKeySecrets),
            phones: Arc::new(crate::phone::LibPhoneNumbers),
            clock: Arc::new(shared_kernel::application::SystemClock),
        };
        let policy = identity_domain::application::AccountPolicy {
            registration_open: settings.registration_open,
            max_failed_logins: settings.login_max_failed_attempts,
            lock_for: settings.login_lock_duration,
            refresh_ttl: crate::auth::tokens::REFRESH_TTL,
        };
        Self {
            // `serve` refuses to start without a secret; other callers
            // (tests, tools) get an unusable random one.
            tokens: TokenService::new(
                settings.jwt_secret.as_deref().unwrap_or(&shared_kernel::new_id().to_string()),
                &settings.jwt_issuer,
            ),
            access,
            live,
            rate_limiter: settings.rate_limit_enabled.then(|| rate_limiter(settings)),
            // Validated when the settings were read.
            trusted_proxies: TrustedProxies::parse(&settings.trusted_proxies).unwrap_or_default(),
            users: ports.users.clone(),
            roles: ports.roles.clone(),
            contacts: ports.contacts.clone(),
            profiles: ports.profiles.clone(),
            api_keys: ports.api_keys.clone(),
            revocations: ports.revocations.clone(),
            app: identity_domain::application::IdentityApplication::new(ports, policy),
        }
    }
}

/// Redis-backed when Redis is configured, so instances share the limits.
fn rate_limiter(settings: &Settings) -> SharedLimiter {
    let redis_pool = settings
        .redis_url
        .as_deref()
        .and_then(|url| deadpool_redis::Config::from_url(url).create_pool(Some(deadpool_redis::Runtime::Tokio1)).ok());
    match redis_pool {
        Some(pool) => Arc::new(RedisLimiter::new(pool, &settings.redis_key_prefix)),
        None => Arc::new(InProcessLimiter::default()),
    }
}

fn cors(settings: &Settings) -> Cors {
    let mut cors = Cors::default()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
        .allowed_headers([
            AUTHORIZATION,
            CONTENT_TYPE,
            HeaderName::from_static("x-request-id"),
            crate::http::idempotency::IDEMPOTENCY_KEY,
            actix_web::http::header::IF_MATCH,
            actix_web::http::header::IF_NONE_MATCH,
        ])
        .expose_headers([
            HeaderName::from_static("x-request-id"),
            crate::http::idempotency::IDEMPOTENT_REPLAYED,
            actix_web::http::header::ETAG,
            HeaderName::from_static("x-ratelimit-limit"),
            HeaderName::from_static("x-ratelimit-remaining"),
            HeaderName::from_static("x-ratelimit-reset"),
            HeaderName::from_static("retry-after"),
        ])
        .max_age(3600);
    for origin in &settings.cors_allowed_origins {
        cors = if origin == "*" { cors.allow_any_origin() } else { cors.allowed_origin(origin) };
    }
    cors
}

async fn no_route() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::not_found("no such route"))
}

/// Builds the app. `serve` calls it once per worker; tests call it directly.
pub fn build_app(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let cors = cors(&state.settings);
    App::new()
        .app_data(state)
        .app_data(web::QueryConfig::default().error_handler(query_error))
        .app_data(web::PathConfig::default().error_handler(path_error))
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        // Innermost first: preconditions run inside a keyed POST's transaction, and both after
        // the gate has identified the caller and the body has arrived.
        .wrap(middleware::from_fn(crate::http::conditional::preconditions))
        .wrap(middleware::from_fn(crate::http::idempotency::replay_or_run))
        // The body whole, before either of those takes a connection for the request.
        .wrap(middleware::from_fn(crate::http::whole_body::read_first))
        .wrap(middleware::from_fn(crate::http::route_policy::enforce))
        .wrap(cors)
        .wrap(middleware::from_fn(observe))
        // One scope per context: the router (and the gate's pattern lookup) compares a context's
        // prefix once instead of matching every other context's routes against the path. The API
        // scope comes first: routes are tried in the order they are registered, and it carries
        // nearly every request (health, metrics and the docs are tried after it).
        .service(
            web::scope("/api/v1")
                .service(web::scope("/shared").configure(routes::reference::configure))
                .service(web::scope("/events").configure(routes::events::configure))
                .service(web::scope("/identity").configure(routes::identity::configure))
                .service(
                    web::scope("/customer-mgmt")
                        .configure(routes::crm::configure)
                        .configure(routes::analytics::configure),
                )
                .service(web::scope("/order-mgmt").configure(routes::orders::configure))
                .service(web::scope("/warehouse").configure(routes::warehouse::configure))
                .configure(routes::webhooks::configure)
                .configure(routes::imports::configure)
                .configure(routes::exports::configure)
                // The UI loads the document from its URL; the document is served as text serialized
                // once, not as a copy of the parsed tree per worker (megabytes each:
                // docs/adr/0018-memory.md).
                .service(web::resource(OPENAPI_FILE).route(web::get().to(openapi_json))),
        )
        .configure(routes::health::configure)
        .configure(routes::operations::configure)
        .service(web::resource("/docs").route(web::get().to(docs_redirect)))
        .service(SwaggerUi::new("/docs/{_:.*}").config(utoipa_swagger_ui::Config::from(OPENAPI_PATH)))
        .default_service(web::to(no_route))
}

/// The published document, inside the `/api/v1` scope.
const OPENAPI_FILE: &str = "/openapi.json";
const OPENAPI_PATH: &str = "/api/v1/openapi.json";

async fn openapi_json() -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok().content_type("application/json").body(crate::openapi::document_text())
}

async fn docs_redirect() -> actix_web::HttpResponse {
    actix_web::HttpResponse::Found().insert_header(("Location", "/docs/")).finish()
}
