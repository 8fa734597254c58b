//! Start-up and shutdown: database, adapters, bus, relay, HTTP server.

use std::sync::Arc;

use actix_web::web;
use postgres_toolkit::bus::{InProcessBus, PgDeliveryObserver, RedisStreamsBus, StreamSettings};
use postgres_toolkit::db::{self, PoolSettings};
use postgres_toolkit::events::{OutboxRelay, OutboxSignal, PgDeadLetterStore};
use postgres_toolkit::kv::{MemoryStore, RedisStore};
use postgres_toolkit::{reference, DbError};
use shared_kernel::ports::{BusError, EventBus, EventHandler, KeyValueStore, KvError};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use webhooks::{DeliveryPolicy, DeliveryQueue, DeliveryWorker, HttpSender, RunningWorker, WebhookFanOut, WorkerSignal};

use identity_domain::application::AdminAccount;
use identity_domain::ports::{AdminProvision, ExistingAccount};

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
    /// The first admin's email names an account that is not an admin.
    #[error("{0}")]
    AdminRefused(String),
    #[error("{0}")]
    Other(String),
}

impl StartupError {
    /// 2 for what the operator must fix in the configuration, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) | Self::AdminRefused(_) => 2,
            _ => 1,
        }
    }
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
    sweeper: JoinHandle<()>,
    /// Analyses changed tables where PostgreSQL does not (autovacuum off).
    analyser: JoinHandle<()>,
    /// The `tally_auth` listener (without Redis only); stops with the relay.
    auth_listener: Option<JoinHandle<()>>,
    /// Completion marks still to write when the bus stops.
    completions: Arc<PgDeliveryObserver>,
    /// The webhook delivery worker.
    webhooks: RunningWorker,
    /// With the in-process bus: the heartbeat and the take-over of dead instances' events.
    instances: Option<JoinHandle<()>>,
    /// The import runner (`IMPORT_RUNNER`).
    imports: Option<JoinHandle<()>>,
}

impl Services {
    /// Stops the relay (after a last flush of the outbox), then the bus.
    pub async fn shutdown(self) {
        self.sweeper.abort();
        self.analyser.abort();
        if let Some(instances) = &self.instances {
            instances.abort();
        }
        // A job cut off here is resumed from its last committed batch by the next claim.
        if let Some(imports) = &self.imports {
            imports.abort();
        }
        // Attempts in flight are abandoned and handed back to be sent again (at least once).
        self.webhooks.stop().await;
        let _ = self.relay_stop.send(true);
        if let Err(error) = self.relay.await {
            tracing::warn!(%error, "outbox relay ended abnormally");
        }
        if let Some(listener) = self.auth_listener {
            let _ = listener.await;
        }
        self.state.bus.shutdown().await;
        self.completions.flush().await;
    }
}

/// Builds the adapters, subscribes `handlers`, starts the bus and the relay.
/// The database must already be migrated. The request connections are one pool every thread shares
/// (tests, tools); `serve` splits them among its HTTP workers instead.
pub async fn start_services(
    settings: Settings,
    handlers: Vec<Arc<dyn EventHandler>>,
) -> Result<Services, StartupError> {
    start_services_split(settings, handlers, 1).await
}

/// [`start_services`] with the request connections split among `http_workers` threads, each
/// bound to its part by [`db::DbPool::bind_this_thread`].
async fn start_services_split(
    settings: Settings,
    handlers: Vec<Arc<dyn EventHandler>>,
    http_workers: usize,
) -> Result<Services, StartupError> {
    let pool = db::build_pool(
        &PoolSettings::new(&settings.database_url, settings.database_pool_size)
            .split_among(http_workers)
            .with_limits(settings.database_limits),
    )?;
    reference::seed(&pool).await?;
    // Event work (relay, bus handlers, completion marks, webhook queue) has connections of its own:
    // a burst of events must not make requests wait, nor requests starve the handlers.
    let event_pool = db::build_pool(
        &PoolSettings::for_events(&settings.database_url, settings.database_event_pool_size)
            .with_limits(settings.database_limits),
    )?;

    // The health probe's one connection, apart from the requests' (routes::health).
    let health_pool =
        db::build_pool(&PoolSettings::new(&settings.database_url, 1).with_limits(settings.database_limits))?;
    let kv: Arc<dyn KeyValueStore> = match &settings.redis_url {
        Some(url) => Arc::new(RedisStore::new(url, &settings.redis_key_prefix)?),
        None => Arc::new(MemoryStore::new()),
    };
    let signal = OutboxSignal::default();
    // Writes that hand their events to the bus themselves (`events::handoff`) wake the relay only
    // for the events they leave it; routes wake it after the other writes' commits.
    pool.wake_relay_with(signal.clone());
    event_pool.wake_relay_with(signal.clone());
    let observer = Arc::new(PgDeliveryObserver::new(event_pool.clone()).waking(signal.clone()));
    let completions = observer.clone();
    let bus: Arc<dyn EventBus> = match (&settings.bus.kind, &settings.redis_url) {
        (EventBusKind::Redis, Some(url)) => {
            let mut streams = StreamSettings::new(format!("{}:events", settings.redis_key_prefix));
            streams.claim_idle = settings.bus.claim_idle;
            streams.batch_size = settings.bus.worker_pool_size.clamp(1, 64);
            Arc::new(RedisStreamsBus::new(url, streams, settings.bus.retry.clone(), observer)?)
        }
        _ => {
            let bus = InProcessBus::new(
                settings.bus.worker_pool_size,
                settings.bus.buffer_size,
                settings.bus.retry.clone(),
                observer,
            );
            // Committed events go to this bus from memory, not through the relay's claim
            // (`events::handoff`); the relay still delivers what is left in the outbox.
            if let Some(queue) = bus.direct_queue() {
                pool.hand_events_to(queue.clone());
                event_pool.hand_events_to(queue);
            }
            Arc::new(bus)
        }
    };
    // The order flow's subscribers need the pool, so they are wired here for every caller.
    for handler in crate::commerce::event_handlers(&event_pool) {
        bus.subscribe(handler);
    }
    for handler in event_handlers(&event_pool) {
        bus.subscribe(handler);
    }
    for handler in handlers {
        bus.subscribe(handler);
    }
    let webhook_signal = WorkerSignal::default();
    let delivery_queue = DeliveryQueue::new(event_pool.clone());
    bus.subscribe(Arc::new(WebhookFanOut::new(delivery_queue.clone(), webhook_signal.clone())));
    bus.start().await?;

    let relay = OutboxRelay::new(event_pool.clone(), bus.clone(), signal.clone());
    let instances = if bus.is_durable() {
        None
    } else {
        // Alive before anything goes in flight, so no instance takes this one's events for a dead one's.
        postgres_toolkit::events::instances::heartbeat(&event_pool).await?;
        Some(spawn_instance_watch(event_pool.clone(), signal.clone()))
    };
    relay.requeue_incomplete().await?;
    let (relay_stop, stop_rx) = watch::channel(false);
    let relay = relay.spawn(stop_rx.clone());

    let identity = IdentityServices::new(&settings, &pool, kv.clone());
    if let (Some(email), Some(password)) = (&settings.admin_email, &settings.admin_password) {
        let account = Account { email, password, name: settings.admin_name.as_deref() };
        ensure_admin(&identity, account, ExistingAccount::Refuse).await?;
    }
    // Import jobs run on connections of their own: a long import never makes requests wait.
    let import_pool =
        db::build_pool(&PoolSettings::new(&settings.database_url, 4).with_limits(settings.database_limits))?;
    import_pool.wake_relay_with(signal.clone());
    let runner_store = import_postgres::ImportStore::new(import_pool);
    let sweeper =
        spawn_sweeper(identity.revocations.clone(), event_pool.clone(), delivery_queue.clone(), runner_store.clone());
    let analyser = spawn_analyser(event_pool.clone());
    // With Redis, revocations live there and every request asks it.
    let auth_listener = match settings.redis_url {
        None => Some(crate::auth::listener::start(settings.database_url.clone(), identity.live.clone(), stop_rx).await),
        Some(_) => None,
    };
    let webhooks = crate::routes::webhooks::WebhookServices::new(&settings, &pool, webhook_signal.clone())?;
    let webhook_worker = DeliveryWorker {
        queue: delivery_queue,
        sender: HttpSender::start(webhooks.policy).map_err(|e| StartupError::Other(format!("webhook sender: {e}")))?,
        secrets: webhooks.secrets.clone(),
        policy: DeliveryPolicy {
            retry_schedule: settings.webhooks.retry_schedule.clone(),
            disable_after: settings.webhooks.disable_after,
        },
        signal: webhook_signal,
    }
    .spawn();
    // The handlers' statements run on the request connections, the runner's on its own.
    let http_imports = import_postgres::ImportStore::new(pool.clone());
    let state = web::Data::new(AppState {
        webhooks,
        identity,
        commerce: crate::commerce::CommerceServices::new(&pool),
        crm: crate::routes::crm::CrmServices::new(&pool),
        settings: Arc::new(settings),
        dead_letters: PgDeadLetterStore::new(pool.clone()),
        pool,
        event_pool,
        kv,
        bus,
        outbox: signal,
        metrics: Arc::new(Metrics::new()?),
        health: crate::routes::health::HealthProbe::new(health_pool),
        imports: http_imports,
        import_runner: crate::imports::RunnerSignal::default(),
    });
    let imports = state
        .settings
        .import_runner
        .then(|| crate::imports::spawn(state.clone(), runner_store, state.import_runner.clone()));
    Ok(Services {
        state,
        relay_stop,
        relay,
        sweeper,
        analyser,
        auth_listener,
        completions,
        webhooks: webhook_worker,
        instances,
        imports,
    })
}

/// With the in-process bus: says this instance is alive, now and every `HEARTBEAT`, and takes over the
/// events in flight of instances that stopped saying so (`postgres_toolkit::events::instances`).
fn spawn_instance_watch(pool: postgres_toolkit::DbPool, relay: OutboxSignal) -> tokio::task::JoinHandle<()> {
    use postgres_toolkit::events::instances::{heartbeat, take_over_dead, HEARTBEAT, PRESUMED_DEAD_AFTER};
    tokio::spawn(async move {
        loop {
            if let Err(error) = heartbeat(&pool).await {
                tracing::warn!(%error, "could not say this instance is alive");
            }
            match take_over_dead(&pool, PRESUMED_DEAD_AFTER).await {
                Ok(0) => {}
                Ok(_) => relay.notify(),
                Err(error) => tracing::warn!(%error, "could not look for dead instances"),
            }
            tokio::time::sleep(HEARTBEAT).await;
        }
    })
}

/// How often revocations of expired tokens and expired idempotency keys are forgotten.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// Deletes revocation entries whose tokens have expired, idempotency keys past
/// their 24 hours and webhook deliveries finished 30 days ago, now and then;
/// several instances sweeping at once only delete the same rows.
fn spawn_sweeper(
    revocations: Arc<dyn identity_domain::TokenRevocations>,
    pool: postgres_toolkit::DbPool,
    deliveries: DeliveryQueue,
    imports: import_postgres::ImportStore,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        loop {
            every.tick().await;
            match revocations.sweep().await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(swept, "forgot revocations of expired tokens"),
                Err(error) => tracing::warn!(%error, "could not sweep token revocations"),
            }
            match postgres_toolkit::idempotency::sweep(&pool).await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(swept, "forgot expired idempotency keys"),
                Err(error) => tracing::warn!(%error, "could not sweep idempotency keys"),
            }
            match deliveries.sweep().await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(swept, "forgot webhook deliveries finished 30 days ago"),
                Err(error) => tracing::warn!(%error, "could not sweep webhook deliveries"),
            }
            match imports.sweep().await {
                Ok(0) => {}
                Ok(swept) => tracing::info!(swept, "dropped old import uploads and errors"),
                Err(error) => tracing::warn!(%error, "could not sweep import jobs"),
            }
        }
    })
}

/// How often Tally asks whether PostgreSQL analyses tables and, where it does not, analyses those
/// that changed (autovacuum's own default round).
const ANALYSE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Every [`ANALYSE_EVERY`]: where PostgreSQL does not analyse tables (autovacuum off), analyses those
/// that changed enough, so that plans made while a table was small are made again as it grows
/// (`postgres_toolkit::db::analyse_changed_tables`). Who analyses is asked each round (a reload may
/// change it) and said in the log when it changes.
fn spawn_analyser(pool: postgres_toolkit::DbPool) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(ANALYSE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut said = db::Analysis::Server;
        loop {
            every.tick().await;
            let who = match db::who_analyses_tables(&pool).await {
                Ok(who) => who,
                Err(error) => {
                    tracing::warn!(%error, "could not read whether PostgreSQL analyses tables");
                    continue;
                }
            };
            if who != said {
                match who {
                    db::Analysis::Server => {
                        tracing::info!("PostgreSQL analyses the tables again; Tally leaves it to it")
                    }
                    db::Analysis::Tally => tracing::warn!(
                        "PostgreSQL runs without autovacuum: Tally analyses the tables that changed, once a minute, \
                         so that plans made while a table was small are made again"
                    ),
                    db::Analysis::Nobody => tracing::warn!(
                        "PostgreSQL runs with track_counts off: no table is ever analysed, and plans made while a \
                         table was small are kept as it grows; turn track_counts and autovacuum on"
                    ),
                }
                said = who;
            }
            if who != db::Analysis::Tally {
                continue;
            }
            match db::analyse_changed_tables(&pool).await {
                Ok(round) => {
                    if !round.analysed.is_empty() {
                        tracing::info!(tables = ?round.analysed, "analysed changed tables");
                    }
                    for (table, error) in round.failed {
                        tracing::warn!(%table, %error, "could not analyse a changed table; the next round tries again");
                    }
                }
                Err(error) => tracing::warn!(%error, "could not analyse changed tables"),
            }
        }
    })
}

/// The event handlers of every context, wired to their adapters; `start_services` subscribes them
/// for every caller (tests included), next to any extra handlers it is given.
pub fn event_handlers(pool: &postgres_toolkit::DbPool) -> Vec<Arc<dyn EventHandler>> {
    vec![Arc::new(crm_postgres::CustomerFromUser::new(pool.clone()))]
}

/// `tally serve`: runs until SIGINT/SIGTERM, then shuts down gracefully.
pub async fn serve(settings: Settings) -> Result<(), StartupError> {
    settings.require_jwt_secret()?;
    prepare_database(&settings).await?;
    let addr = settings.bind_addr.clone();
    let workers = settings.http_workers;
    let request_timeout = settings.request_timeout;
    let services = start_services_split(settings, Vec::new(), workers).await?;
    let state = services.state.clone();
    // The factory runs once on each worker thread as it starts: the thread takes its part of the
    // request connections there, so they are opened, driven and used on it.
    let server = actix_web::HttpServer::new(move || {
        db::DbPool::bind_this_thread();
        build_app(state.clone())
    })
    .workers(workers)
    // A head that has not arrived by then is answered 408 (and the body by `http::whole_body`).
    .client_request_timeout(request_timeout)
    // A client that closes its side has gone: its request is dropped, and a write it queued is never
    // started (docs/bounded-work.md). HTTP/1.1 clients do not half-close while awaiting an answer.
    .h1_allow_half_closed(false)
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

/// The first admin's credentials.
pub struct Account<'a> {
    pub email: &'a str,
    pub password: &'a str,
    pub name: Option<&'a str>,
}

/// The first admin, through identity's use case (`Accounts::provision_admin`): a refusal to promote
/// an existing account stops the start-up with what to do instead.
async fn ensure_admin(
    identity: &IdentityServices,
    account: Account<'_>,
    existing: ExistingAccount,
) -> Result<AdminProvision, StartupError> {
    let email = account.email.to_owned();
    let admin = AdminAccount {
        email: account.email.to_owned(),
        password: account.password.to_owned(),
        name: account.name.map(str::to_owned),
    };
    let outcome = identity
        .app
        .accounts
        .provision_admin(admin, existing)
        .await
        .map_err(|e| StartupError::Other(format!("admin user: {e}")))?;
    if outcome == AdminProvision::RefusedNotAdmin {
        return Err(StartupError::AdminRefused(format!(
            "{email} belongs to an existing account that is not an admin; nothing changed \
             (ADMIN_EMAIL only creates a missing admin: unset it, or promote the account \
             explicitly with `tally create-admin --promote`)"
        )));
    }
    tracing::info!(email = %email, ?outcome, "admin user ensured");
    Ok(outcome)
}

/// `tally create-admin`.
pub async fn create_admin(
    settings: Settings,
    email: String,
    password: String,
    name: Option<String>,
    promote: bool,
) -> Result<(), StartupError> {
    prepare_database(&settings).await?;
    let pool = db::build_pool(&PoolSettings::new(&settings.database_url, 2).with_limits(settings.database_limits))?;
    let kv: Arc<dyn KeyValueStore> = match &settings.redis_url {
        Some(url) => Arc::new(RedisStore::new(url, &settings.redis_key_prefix)?),
        None => Arc::new(MemoryStore::new()),
    };
    let identity = IdentityServices::new(&settings, &pool, kv);
    let existing = if promote { ExistingAccount::Promote } else { ExistingAccount::Refuse };
    let account = Account { email: &email, password: &password, name: name.as_deref() };
    let outcome = ensure_admin(&identity, account, existing).await?;
    let what = match outcome {
        AdminProvision::Created(_) => "created",
        AdminProvision::Promoted(_) => "promoted (password set, earlier sessions ended)",
        AdminProvision::AlreadyAdmin(_) | AdminProvision::RefusedNotAdmin => {
            println!(
                "admin {email} already exists; nothing changed (--promote sets its password and grants both roles)"
            );
            return Ok(());
        }
    };
    println!("admin {email} {what}: active with the admin and superadmin roles");
    Ok(())
}
