//! Connection pool, database creation and embedded migrations.

use std::time::Duration;

use deadpool::Runtime;
use diesel::ConnectionError;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use diesel_async::{AsyncConnection, AsyncMigrationHarness, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

mod pool;
mod statistics;

pub use pool::{DbConn, DbPool, SharedConn, REFUSAL_COOL_OFF};
pub use statistics::{analyse_changed_tables, who_analyses_tables, Analysis, AnalysisRound, ANALYSIS_LOCK};

/// Every migration in the top-level `migrations/` folder, compiled in.
pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

/// Failures of the database adapter. Callers map `Unavailable` to 503 and
/// everything else to a logged 500; the text never reaches a client.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("database error: {0}")]
    Query(#[from] diesel::result::Error),
    #[error("migration failed: {0}")]
    Migration(String),
    #[error("invalid database URL: {0}")]
    InvalidUrl(String),
}

impl From<diesel_async::pooled_connection::deadpool::PoolError> for DbError {
    fn from(error: diesel_async::pooled_connection::deadpool::PoolError) -> Self {
        DbError::Unavailable(error.to_string())
    }
}

/// The connections of the threads that are not HTTP workers when a pool is split among workers.
pub const SHARED_PART_SIZE: usize = 2;

/// What every connection Tally opens sets for its whole session, so no statement, lock wait or idle
/// transaction can hold a connection, a row or a worker's queue for longer (docs/bounded-work.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// `lock_timeout`: a statement waiting for a lock this long fails (answered 503 with `Retry-After`).
    pub lock_timeout: Duration,
    /// `statement_timeout`: a runaway statement fails instead of holding its connection.
    pub statement_timeout: Duration,
    /// `idle_in_transaction_session_timeout`: a connection left idle inside a transaction (its holder
    /// stalled or gone) is closed by the server, which rolls back and frees its locks.
    pub idle_in_transaction_timeout: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            lock_timeout: Duration::from_secs(2),
            statement_timeout: Duration::from_secs(30),
            idle_in_transaction_timeout: Duration::from_secs(30),
        }
    }
}

impl SessionLimits {
    /// The `SET` statements, as one simple query (with the session's name and time zone).
    pub fn setup_sql(&self) -> String {
        // Zero would mean "no limit" to PostgreSQL: at least a millisecond.
        let ms = |d: Duration| d.as_millis().max(1);
        format!(
            "SET application_name = 'tally'; SET TIME ZONE 'UTC'; SET statement_timeout = {}; \
             SET lock_timeout = {}; SET idle_in_transaction_session_timeout = {}; SET tally.instance = '{}'",
            ms(self.statement_timeout),
            ms(self.lock_timeout),
            ms(self.idle_in_transaction_timeout),
            instance_id()
        )
    }
}

/// This process's id among the instances sharing the database (`events::instances`): every
/// connection names it in its `tally.instance` setting.
pub fn instance_id() -> uuid::Uuid {
    static INSTANCE: std::sync::OnceLock<uuid::Uuid> = std::sync::OnceLock::new();
    *INSTANCE.get_or_init(uuid::Uuid::now_v7)
}

#[derive(Debug, Clone)]
pub struct PoolSettings {
    pub url: String,
    pub max_size: usize,
    /// How long a request waits for a free connection before giving up.
    pub wait_timeout: Duration,
    /// Every connection's timeouts.
    pub limits: SessionLimits,
    /// Parts `max_size` is split into, one per HTTP worker thread (see [`DbPool`]); with more than
    /// one, every other thread gets [`SHARED_PART_SIZE`] connections besides.
    pub parts: usize,
}

impl PoolSettings {
    pub fn new(url: impl Into<String>, max_size: usize) -> Self {
        Self {
            url: url.into(),
            max_size,
            wait_timeout: Duration::from_secs(5),
            limits: SessionLimits::default(),
            parts: 1,
        }
    }

    /// The same pool with `limits` on every connection.
    pub fn with_limits(self, limits: SessionLimits) -> Self {
        Self { limits, ..self }
    }

    /// The connections split among `workers` threads, each with a part of its own.
    pub fn split_among(self, workers: usize) -> Self {
        Self { parts: workers, ..self }
    }

    /// For event work: a handler may wait for a connection longer than a request would (a burst
    /// queues behind the pool instead of failing deliveries that would then be retried).
    pub fn for_events(url: impl Into<String>, max_size: usize) -> Self {
        Self { wait_timeout: Duration::from_secs(60), ..Self::new(url, max_size) }
    }
}

/// Builds the pool (in `settings.parts` parts). Connections are opened lazily; each one is tagged
/// with `application_name` and gets the [`SessionLimits`].
pub fn build_pool(settings: &PoolSettings) -> Result<DbPool, DbError> {
    if settings.parts <= 1 {
        return Ok(DbPool::new(build_part(settings, settings.max_size)?, Vec::new()));
    }
    let workers = pool::part_sizes(settings.max_size, settings.parts)
        .into_iter()
        .map(|size| build_part(settings, size))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DbPool::new(build_part(settings, SHARED_PART_SIZE)?, workers))
}

fn build_part(settings: &PoolSettings, size: usize) -> Result<pool::Part, DbError> {
    Ok(pool::Part::new(build_connections(settings, size)?, settings.wait_timeout))
}

fn build_connections(settings: &PoolSettings, size: usize) -> Result<Pool<AsyncPgConnection>, DbError> {
    let setup = settings.limits.setup_sql();
    let mut config = ManagerConfig::default();
    // No `SELECT 1` before every checkout: a connection the server closed is
    // known closed (its driver saw the socket end) and is dropped instead, and
    // a query that still meets a dead connection is answered 503.
    config.recycling_method = RecyclingMethod::Fast;
    config.custom_setup = Box::new(move |url| {
        let setup = setup.clone();
        Box::pin(async move {
            let mut conn = AsyncPgConnection::establish(url).await?;
            conn.batch_execute(&setup).await.map_err(ConnectionError::CouldntSetupConfiguration)?;
            Ok(conn)
        })
    });
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(&settings.url, config);
    Pool::builder(manager)
        .max_size(size)
        .wait_timeout(Some(settings.wait_timeout))
        .create_timeout(Some(settings.wait_timeout))
        .recycle_timeout(Some(Duration::from_secs(2)))
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|e| DbError::Unavailable(e.to_string()))
}

/// Splits `postgres://…/name?opts` into the URL of the maintenance database
/// `postgres` on the same server and the database name.
pub fn split_database_url(url: &str) -> Result<(String, String), DbError> {
    let (without_query, query) = match url.split_once('?') {
        Some((head, tail)) => (head, Some(tail)),
        None => (url, None),
    };
    let scheme_end = without_query.find("://").ok_or_else(|| DbError::InvalidUrl("missing scheme".into()))?;
    let slash = without_query[scheme_end + 3..]
        .find('/')
        .map(|i| i + scheme_end + 3)
        .ok_or_else(|| DbError::InvalidUrl("missing database name".into()))?;
    let name = &without_query[slash + 1..];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(DbError::InvalidUrl("database name must be letters, digits, '_' or '-'".into()));
    }
    let mut admin = format!("{}/postgres", &without_query[..slash]);
    if let Some(query) = query {
        admin.push('?');
        admin.push_str(query);
    }
    Ok((admin, name.to_owned()))
}

/// Creates the database named in `url` when it does not exist yet.
pub async fn ensure_database_exists(url: &str) -> Result<(), DbError> {
    match AsyncPgConnection::establish(url).await {
        Ok(_) => return Ok(()),
        Err(error) if error.to_string().contains("does not exist") => {}
        Err(error) => return Err(DbError::Unavailable(error.to_string())),
    }
    let (admin_url, name) = split_database_url(url)?;
    let mut admin = AsyncPgConnection::establish(&admin_url).await.map_err(|e| DbError::Unavailable(e.to_string()))?;
    let created = diesel::sql_query(format!("CREATE DATABASE \"{name}\"")).execute(&mut admin).await;
    match created {
        Ok(_) => {
            tracing::info!(database = %name, "created database");
            Ok(())
        }
        // Another instance may have created it between our two steps.
        Err(diesel::result::Error::DatabaseError(_, info)) if info.message().contains("already exists") => Ok(()),
        Err(other) => Err(DbError::Query(other)),
    }
}

/// Applies pending migrations; returns how many ran.
pub async fn run_migrations(url: &str) -> Result<usize, DbError> {
    let conn = AsyncPgConnection::establish(url).await.map_err(|e| DbError::Unavailable(e.to_string()))?;
    // The harness blocks; keep it off the async workers.
    tokio::task::spawn_blocking(move || {
        let mut harness = AsyncMigrationHarness::new(conn);
        harness
            .run_pending_migrations(MIGRATIONS)
            .map(|applied| applied.len())
            .map_err(|e| DbError::Migration(e.to_string()))
    })
    .await
    .map_err(|e| DbError::Migration(e.to_string()))?
}

/// The connection a request's adapter works on: the request transaction's when
/// the request runs in one (see [`crate::request_tx`]), else a pooled one.
pub async fn checkout(pool: &DbPool) -> Result<crate::request_tx::Conn, DbError> {
    if let Some(conn) = crate::request_tx::current() {
        return Ok(conn);
    }
    Ok(crate::request_tx::Conn::Pooled(pool.get().await?))
}

/// A connection for reads outside any transaction (a by-id read: one statement, or two pipelined):
/// the request transaction's when the request runs in one, else a pooled one other reads may share
/// ([`DbPool::get_shared`]).
pub async fn checkout_shared(pool: &DbPool) -> Result<crate::request_tx::ReadConn, DbError> {
    if let Some(guard) = crate::request_tx::current_guard() {
        return Ok(crate::request_tx::ReadConn::Request(guard));
    }
    Ok(crate::request_tx::ReadConn::Shared(pool.get_shared().await?))
}

/// Round trip that proves a pooled connection works.
pub async fn ping(pool: &DbPool) -> Result<(), DbError> {
    let mut conn = pool.get().await?;
    diesel::sql_query("SELECT 1").execute(&mut conn).await?;
    Ok(())
}

/// `text` with LIKE's wildcards (and its escape character) taken literally.
pub fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// `%text%` for LIKE/ILIKE, with the wildcards in `text` taken literally.
pub fn contains_pattern(text: &str) -> String {
    format!("%{}%", escape_like(text))
}

diesel::define_sql_function! {
    /// SQL `lower()`, for the case-insensitive look-ups behind the `lower(…)` indexes.
    fn lower(text: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

diesel::define_sql_function! {
    /// SQL `strpos()`: where `needle` first occurs in `text` (1-based), 0 when it does not. No index
    /// serves it, which is what a clause that must only be checked, never searched by, wants.
    fn strpos(text: diesel::sql_types::Text, needle: diesel::sql_types::Text) -> diesel::sql_types::Integer;
}

/// The same, lower-cased, for LIKE against a lower-cased column.
pub fn contains_pattern_lower(text: &str) -> String {
    contains_pattern(&text.to_lowercase())
}

/// A trivial query on this service's own schema: fails when the database
/// answers but the schema is missing or broken.
pub async fn schema_probe(pool: &DbPool) -> Result<(), DbError> {
    let mut conn = pool.get().await?;
    diesel::sql_query("SELECT 1 FROM outbox_events LIMIT 1").execute(&mut conn).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_urls() {
        let (admin, name) = split_database_url("postgres://postgres@127.0.0.1:5432/tally").expect("valid");
        assert_eq!(admin, "postgres://postgres@127.0.0.1:5432/postgres");
        assert_eq!(name, "tally");
        let (admin, name) = split_database_url("postgres://u:p@h/db_1?sslmode=disable").expect("valid");
        assert_eq!((admin.as_str(), name.as_str()), ("postgres://u:p@h/postgres?sslmode=disable", "db_1"));
        assert!(split_database_url("postgres://h").is_err());
        assert!(split_database_url("postgres://h/x;drop").is_err());
    }

    #[test]
    fn like_patterns_take_wildcards_literally() {
        assert_eq!(contains_pattern("a%_b\\"), "%a\\%\\_b\\\\%");
        assert_eq!(contains_pattern_lower("AbC"), "%abc%");
    }
}
