//! Start-up and shutdown: database, adapters, bus, relay, HTTP server.

use std::sync::Arc;

use actix_web::web;
use infrastructure::bus::{InProcessBus, PgDeliveryObserver, RedisStreamsBus, StreamSettings};
use infrastructure::db::{self, PoolSettings};
use infrastructure::events::{OutboxRelay, OutboxSignal, PgDeadLetterStore};
use infrastructure::kv::{MemoryStore, RedisStore};
use infrastructure::{reference, DbError};
use shared_kernel::ports::{BusError, EventBus, EventHandler, KeyValueStore, KvError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app::{build_app, AppState, IdentityServices};
use crate::config::{ConfigError, EventBusKind, Settings};
use crate::metrics::Metrics;

/// Why the service could not start; printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("database: {0}")]
    Database(#[from] DbError),
    #[error("event bus: {0}")]
    Bus(#[from] BusError),
    #[error("key-value store: {0}")]
    KeyValue(#[from] KvError),
    #[error("metrics: {0}")]
    Metrics(#[from] prometheus::Error),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    #[error("server: {0}")]
    Server(std::io::Error),
    #[error("{0}")]
    Other(String),
}

/// Creates the database if needed and applies migrations.
pub async fn prepare_database(settings: &Settings) -> Result<usize, StartupError> {
    db::ensure_database_exists(&settings.database_url).await?;
    let applied = db::run_migrations(&settings.database_url).await?;
    if applied > 0 {
        tracing::info!(applied, "applied migrations");
    }
    Ok(applied)
}

/// A running set of adapters, background tasks included.
pub struct Services {
    pub state: web::Data<AppState>,
    relay_stop: watch::Sender<bool>,
    relay: JoinHandle<()>,
}

impl Services {
    /// Stops the relay (after a last flush of the outbox), then the bus.
    pub async fn shutdown(self) {
        let _ = self.relay_stop.send(true);
        if let Err(error) = self.relay.await {
            tracing::warn!(%error, "outbox relay ended abnormally");
        }
        self.state.bus.shutdown().await;
    }
}

/// Builds the adapters, subscribes `handlers`, starts the bus and the relay.
/// The database must already be migrated.
pub async fn start_services(
    settings: Settings,
    handlers: Vec<Arc<dyn EventHandler>>,
) -> Result<Services, StartupError> {
    let pool = db::build_pool(&PoolSettings::new(&settings.database_url, settings.database_pool_size))?;
    reference::seed(&pool).await?;

    let kv: Arc<dyn KeyValueStore> = match &settings.redis_url {
        Some(url) => Arc::new(RedisStore::new(url, &settings.redis_key_prefix)?),
        None => Arc::new(MemoryStore::new()),
    };
    let signal = OutboxSignal::default();
    let observer = Arc::new(PgDeliveryObserver::new(pool.clone()).waking(signal.clone()));
    let bus: Arc<dyn EventBus> = match (&settings.bus.kind, &settings.redis_url) {
        (EventBusKind::Redis, Some(url)) => {
            let mut streams = StreamSettings::new(format!("{}:events", settings.redis_key_prefix));
            streams.claim_idle = settings.bus.claim_idle;
            streams.batch_size = settings.bus.worker_pool_size.clamp(1, 64);
            Arc::new(RedisStreamsBus::new(url, streams, settings.bus.retry.clone(), observer)?)
        }
        _ => Arc::new(InProcessBus::new(
            settings.bus.worker_pool_size,
            settings.bus.buffer_size,
            settings.bus.retry.clone(),
            observer,
        )),
    };
    // The order flow's subscribers need the pool, so they are wired here for every caller.
    for handler in crate::commerce::event_handlers(&pool) {
        bus.subscribe(handler);
    }
    for handler in event_handlers(&pool) {
        bus.subscribe(handler);
    }
    for handler in handlers {
        bus.subscribe(handler);
    }
    bus.start().await?;

    let relay = OutboxRelay::new(pool.clone(), bus.clone(), signal.clone());
    relay.requeue_incomplete().await?;
    let (relay_stop, stop_rx) = watch::channel(false);
    let relay = relay.spawn(stop_rx);

    let identity = IdentityServices::new(&settings, &pool, kv.clone());
    if let (Some(email), Some(password)) = (&settings.admin_email, &settings.admin_password) {
        ensure_admin(&identity, &settings, email, password, settings.admin_name.as_deref()).await?;
    }
    let state = web::Data::new(AppState {
        identity,
        commerce: crate::commerce::CommerceServices::new(&pool),
        crm: crate::routes::crm::CrmServices::new(&pool),
        settings: Arc::new(settings),
        dead_letters: PgDeadLetterStore::new(pool.clone()),
        pool,
        kv,
        bus,
        outbox: signal,
        metrics: Arc::new(Metrics::new()?),
    });
    Ok(Services { state, relay_stop, relay })
}

/// The event handlers of every context, wired to their adapters; `start_services` subscribes them
/// for every caller (tests included), next to any extra handlers it is given.
pub fn event_handlers(pool: &infrastructure::DbPool) -> Vec<Arc<dyn EventHandler>> {
    vec![Arc::new(infrastructure::crm::CustomerFromUser::new(pool.clone()))]
}

/// `tally serve`: runs until SIGINT/SIGTERM, then shuts down gracefully.
pub async fn serve(settings: Settings) -> Result<(), StartupError> {
    settings.require_jwt_secret()?;
    prepare_database(&settings).await?;
    let addr = settings.bind_addr.clone();
    let services = start_services(settings, Vec::new()).await?;
    let state = services.state.clone();
    let server = actix_web::HttpServer::new(move || build_app(state.clone()))
        .shutdown_timeout(30)
        .bind(&addr)
        .map_err(|source| StartupError::Bind { addr: addr.clone(), source })?;
    tracing::info!(%addr, version = env!("CARGO_PKG_VERSION"), "tally is listening");
    // actix stops accepting on SIGINT/SIGTERM and waits for in-flight requests.
    let outcome = server.run().await;
    tracing::info!("HTTP server stopped; flushing the outbox and stopping the bus");
    services.shutdown().await;
    outcome.map_err(StartupError::Server)
}

/// `tally migrate`.
pub async fn migrate(settings: Settings) -> Result<(), StartupError> {
    let applied = prepare_database(&settings).await?;
    println!("migrations applied: {applied}");
    Ok(())
}

/// Makes sure `email` is an active user holding `admin` and `superadmin`.
async fn ensure_admin(
    identity: &IdentityServices,
    settings: &Settings,
    email: &str,
    password: &str,
    name: Option<&str>,
) -> Result<(), StartupError> {
    let email = identity_domain::Email::parse(email).map_err(|e| StartupError::Other(format!("admin email: {e}")))?;
    let password = identity_domain::Password::parse("password", password)
        .map_err(|e| StartupError::Other(format!("admin password: {e}")))?;
    let password_hash = crate::auth::passwords::hash(password.expose().to_owned(), settings.bcrypt_cost)
        .await
        .map_err(|e| StartupError::Other(format!("admin password: {}", e.message)))?;
    let id = shared_kernel::new_id();
    let name = name.map(str::trim).filter(|n| !n.is_empty()).unwrap_or("Administrator").to_owned();
    let registered = crate::routes::identity::users::registered_event(id, email.as_str(), &name);
    let user = identity_domain::ports::NewUser { id, email: email.as_str().to_owned(), name, password_hash };
    let admin_id = identity
        .users
        .ensure_with_roles(user, &["admin", "superadmin"], vec![registered])
        .await
        .map_err(|e| StartupError::Other(format!("admin user: {e}")))?;
    identity.access.invalidate_user(admin_id).await;
    tracing::info!(email = email.as_str(), "admin user ensured");
    Ok(())
}

/// `tally create-admin`.
pub async fn create_admin(
    settings: Settings,
    email: String,
    password: String,
    name: Option<String>,
) -> Result<(), StartupError> {
    prepare_database(&settings).await?;
    let pool = db::build_pool(&PoolSettings::new(&settings.database_url, 2))?;
    let kv: Arc<dyn KeyValueStore> = match &settings.redis_url {
        Some(url) => Arc::new(RedisStore::new(url, &settings.redis_key_prefix)?),
        None => Arc::new(MemoryStore::new()),
    };
    let identity = IdentityServices::new(&settings, &pool, kv);
    ensure_admin(&identity, &settings, &email, &password, name.as_deref()).await?;
    println!("admin {email} is active with the admin and superadmin roles");
    Ok(())
}
