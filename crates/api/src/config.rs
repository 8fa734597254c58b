//! Configuration from environment variables, validated once at start.
//!
//! `Settings::from_lookup` takes the lookup as a function, so tests pass
//! their own values instead of touching the process environment.

use std::time::Duration;

use postgres_toolkit::bus::RetryPolicy;
use shared_kernel::CurrencyCode;

mod webhooks;
pub use webhooks::WebhookSettings;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventBusKind {
    InProcess,
    Redis,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogFormat {
    Pretty,
    Json,
}

#[derive(Debug, Clone)]
pub struct BusSettings {
    pub kind: EventBusKind,
    pub worker_pool_size: usize,
    pub buffer_size: usize,
    pub retry: RetryPolicy,
    /// Idle time after which a Redis Streams message of a dead consumer is reclaimed.
    pub claim_idle: Duration,
}

#[derive(Clone)]
pub struct Settings {
    pub database_url: String,
    pub database_pool_size: usize,
    /// Connections for event work, apart from the requests' (`DATABASE_EVENT_POOL_SIZE`).
    pub database_event_pool_size: usize,
    /// Threads serving HTTP (`HTTP_WORKERS`, default one per CPU); the request connections are split
    /// among them.
    pub http_workers: usize,
    /// Timeouts every database connection sets (`DATABASE_LOCK_TIMEOUT`, `DATABASE_STATEMENT_TIMEOUT`,
    /// `DATABASE_IDLE_IN_TRANSACTION_TIMEOUT`).
    pub database_limits: postgres_toolkit::db::SessionLimits,
    /// How long a request's head and body may take to arrive (`REQUEST_TIMEOUT`): then 408.
    pub request_timeout: Duration,
    /// The largest import upload (`IMPORT_MAX_BYTES`, default 256 MiB): more is 413.
    pub import_max_bytes: u64,
    /// Whether this instance runs import jobs (`IMPORT_RUNNER`, default true); an instance that
    /// does not still takes uploads, which another instance runs (docs/imports-and-exports.md).
    pub import_runner: bool,
    /// Required by `serve`; `migrate` and `create-admin` run without it.
    pub jwt_secret: Option<String>,
    pub jwt_issuer: String,
    pub bind_addr: String,
    pub redis_url: Option<String>,
    /// Namespace of every Redis key this service writes.
    pub redis_key_prefix: String,
    pub bus: BusSettings,
    pub rate_limit_enabled: bool,
    pub trusted_proxies: Vec<String>,
    pub login_max_failed_attempts: u32,
    pub login_lock_duration: Duration,
    pub bcrypt_cost: u32,
    pub reporting_currency: CurrencyCode,
    pub admin_email: Option<String>,
    pub admin_password: Option<String>,
    pub admin_name: Option<String>,
    pub log_format: LogFormat,
    pub cors_allowed_origins: Vec<String>,
    /// `REGISTRATION=closed` refuses self-registration.
    pub registration_open: bool,
    /// When set, `/metrics` needs `Authorization: Bearer <token>`; when unset it
    /// answers loopback peers only.
    pub metrics_token: Option<String>,
    /// Outbound webhooks (docs/webhooks.md).
    pub webhooks: WebhookSettings,
}

impl std::fmt::Debug for Settings {
    // Hand-written so secrets never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("bind_addr", &self.bind_addr)
            .field("database_pool_size", &self.database_pool_size)
            .field("database_event_pool_size", &self.database_event_pool_size)
            .field("http_workers", &self.http_workers)
            .field("redis", &self.redis_url.is_some())
            .field("bus", &self.bus.kind)
            .field("rate_limit_enabled", &self.rate_limit_enabled)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{name}: {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: String,
}

fn invalid(name: &'static str, problem: impl Into<String>) -> ConfigError {
    ConfigError { name, problem: problem.into() }
}

/// Event work's connections by default: half the requests' (at least 2), enough for the order flow's
/// handlers to keep up with confirmations (docs/adr/0015-pool-parts-per-worker.md).
fn default_event_pool_size(request_pool_size: usize) -> usize {
    (request_pool_size / 2).max(2)
}

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/tally";
pub const MIN_JWT_SECRET_BYTES: usize = 32;
/// A bearer token guessable by nobody (docs/identity.md).
pub const MIN_METRICS_TOKEN_BYTES: usize = 32;

/// Secrets that appear (or appeared) in the project's own files: `serve`
/// refuses them. A test keeps this list in step with README, docs/ and deploy/.
pub const PUBLISHED_EXAMPLE_SECRETS: &[&str] = &[
    "replace-with-at-least-32-random-bytes-000000",
    "dev-only-jwt-secret-change-me-0123456789",
    "test-secret-test-secret-test-secret-0123",
];

struct Env<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
}

impl Env<'_> {
    /// The variable's value, treating an empty string as unset.
    fn get(&self, name: &str) -> Option<String> {
        (self.lookup)(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
    }

    fn string(&self, name: &str, default: &str) -> String {
        self.get(name).unwrap_or_else(|| default.to_owned())
    }

    fn number<T: std::str::FromStr>(&self, name: &'static str, default: T) -> Result<T, ConfigError> {
        match self.get(name) {
            None => Ok(default),
            Some(raw) => raw.parse().map_err(|_| invalid(name, format!("'{raw}' is not a valid number"))),
        }
    }

    fn duration(&self, name: &'static str, default: Duration) -> Result<Duration, ConfigError> {
        match self.get(name) {
            None => Ok(default),
            Some(raw) => humantime::parse_duration(&raw)
                .map_err(|_| invalid(name, format!("'{raw}' is not a duration such as 500ms, 1s, 30s or 15m"))),
        }
    }

    /// A duration from 1 ms to a day: zero would switch a limit off.
    fn positive_duration(&self, name: &'static str, default: Duration) -> Result<Duration, ConfigError> {
        let value = self.duration(name, default)?;
        if value < Duration::from_millis(1) || value > Duration::from_secs(86_400) {
            return Err(invalid(name, "must be between 1ms and 24h"));
        }
        Ok(value)
    }

    fn boolean(&self, name: &'static str, default: bool) -> Result<bool, ConfigError> {
        match self.get(name).map(|v| v.to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if matches!(v.as_str(), "true" | "1" | "yes" | "on") => Ok(true),
            Some(v) if matches!(v.as_str(), "false" | "0" | "no" | "off") => Ok(false),
            Some(v) => Err(invalid(name, format!("'{v}' is not true or false"))),
        }
    }

    fn list(&self, name: &str, default: &[&str]) -> Vec<String> {
        match self.get(name) {
            None => default.iter().map(|s| (*s).to_owned()).collect(),
            Some(raw) => raw.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
        }
    }
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(&|name| std::env::var(name).ok())
    }

    pub fn from_lookup(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let env = Env { lookup };
        let database_url = env.string("DATABASE_URL", DEFAULT_DATABASE_URL);
        if !(database_url.starts_with("postgres://") || database_url.starts_with("postgresql://")) {
            return Err(invalid("DATABASE_URL", "must be a postgres:// URL"));
        }
        let database_pool_size: usize = env.number("DATABASE_POOL_SIZE", 16)?;
        if !(1..=1000).contains(&database_pool_size) {
            return Err(invalid("DATABASE_POOL_SIZE", "must be between 1 and 1000"));
        }
        let database_event_pool_size: usize =
            env.number("DATABASE_EVENT_POOL_SIZE", default_event_pool_size(database_pool_size))?;
        if !(1..=1000).contains(&database_event_pool_size) {
            return Err(invalid("DATABASE_EVENT_POOL_SIZE", "must be between 1 and 1000"));
        }
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let http_workers: usize = env.number("HTTP_WORKERS", cpus)?;
        if !(1..=256).contains(&http_workers) {
            return Err(invalid("HTTP_WORKERS", "must be between 1 and 256"));
        }
        let database_limits = postgres_toolkit::db::SessionLimits {
            lock_timeout: env.positive_duration("DATABASE_LOCK_TIMEOUT", Duration::from_secs(2))?,
            statement_timeout: env.positive_duration("DATABASE_STATEMENT_TIMEOUT", Duration::from_secs(30))?,
            idle_in_transaction_timeout: env
                .positive_duration("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", Duration::from_secs(30))?,
        };
        let request_timeout = env.positive_duration("REQUEST_TIMEOUT", Duration::from_secs(30))?;
        let import_max_bytes: u64 = env.number("IMPORT_MAX_BYTES", 256 * 1024 * 1024)?;
        if import_max_bytes == 0 {
            return Err(invalid("IMPORT_MAX_BYTES", "must be at least 1"));
        }
        let jwt_secret = env.get("JWT_SECRET");
        if let Some(secret) = &jwt_secret {
            if secret.len() < MIN_JWT_SECRET_BYTES {
                return Err(invalid("JWT_SECRET", format!("must be at least {MIN_JWT_SECRET_BYTES} bytes long")));
            }
        }
        let metrics_token = env.get("METRICS_TOKEN");
        if metrics_token.as_ref().is_some_and(|token| token.len() < MIN_METRICS_TOKEN_BYTES) {
            return Err(invalid("METRICS_TOKEN", format!("must be at least {MIN_METRICS_TOKEN_BYTES} bytes long")));
        }
        let redis_url = env.get("REDIS_URL");
        if let Some(url) = &redis_url {
            if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
                return Err(invalid("REDIS_URL", "must be a redis:// URL"));
            }
        }
        let kind = match env.string("EVENT_BUS", "in-process").to_ascii_lowercase().as_str() {
            "in-process" | "in_process" | "inprocess" | "memory" => EventBusKind::InProcess,
            "redis" => EventBusKind::Redis,
            other => return Err(invalid("EVENT_BUS", format!("'{other}' is not 'in-process' or 'redis'"))),
        };
        if kind == EventBusKind::Redis && redis_url.is_none() {
            return Err(invalid("EVENT_BUS", "'redis' needs REDIS_URL"));
        }
        let retry = RetryPolicy {
            attempts: env.number("BUS_RETRY_ATTEMPTS", 5)?,
            initial_delay: env.duration("BUS_RETRY_DELAY", Duration::from_secs(1))?,
            max_delay: env.duration("BUS_RETRY_MAX_DELAY", Duration::from_secs(30))?,
            multiplier: env.number("BUS_RETRY_MULTIPLIER", 2.0)?,
        };
        if retry.attempts == 0 {
            return Err(invalid("BUS_RETRY_ATTEMPTS", "must be at least 1"));
        }
        if !(retry.multiplier.is_finite() && retry.multiplier >= 1.0) {
            return Err(invalid("BUS_RETRY_MULTIPLIER", "must be a number of at least 1.0"));
        }
        let bus = BusSettings {
            kind,
            worker_pool_size: env.number("BUS_WORKER_POOL_SIZE", 50)?,
            buffer_size: env.number("BUS_BUFFER_SIZE", 10_000)?,
            retry,
            claim_idle: env.duration("BUS_CLAIM_IDLE", Duration::from_secs(60))?,
        };
        if bus.worker_pool_size == 0 || bus.buffer_size == 0 {
            return Err(invalid("BUS_WORKER_POOL_SIZE", "pool and buffer sizes must be at least 1"));
        }
        let bcrypt_cost: u32 = env.number("BCRYPT_COST", 12)?;
        if !(4..=31).contains(&bcrypt_cost) {
            return Err(invalid("BCRYPT_COST", "must be between 4 and 31"));
        }
        let reporting_currency = CurrencyCode::parse(&env.string("REPORTING_CURRENCY", "USD"))
            .map_err(|_| invalid("REPORTING_CURRENCY", "must be a three-letter ISO 4217 code"))?;
        let log_format = match env.get("LOG_FORMAT").map(|v| v.to_ascii_lowercase()) {
            None => {
                if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                    LogFormat::Pretty
                } else {
                    LogFormat::Json
                }
            }
            Some(v) if v == "pretty" => LogFormat::Pretty,
            Some(v) if v == "json" => LogFormat::Json,
            Some(v) => return Err(invalid("LOG_FORMAT", format!("'{v}' is not 'pretty' or 'json'"))),
        };
        let login_max_failed_attempts: u32 = env.number("LOGIN_MAX_FAILED_ATTEMPTS", 5)?;
        if login_max_failed_attempts == 0 {
            return Err(invalid("LOGIN_MAX_FAILED_ATTEMPTS", "must be at least 1"));
        }
        let trusted_proxies = env.list("TRUSTED_PROXIES", &[]);
        crate::http::rate_limit::TrustedProxies::parse(&trusted_proxies).map_err(|e| invalid("TRUSTED_PROXIES", e))?;
        let admin_email = env.get("ADMIN_EMAIL");
        let admin_password = env.get("ADMIN_PASSWORD");
        if admin_email.is_some() != admin_password.is_some() {
            return Err(invalid("ADMIN_EMAIL", "ADMIN_EMAIL and ADMIN_PASSWORD must be set together"));
        }
        let registration_open = match env.string("REGISTRATION", "open").to_ascii_lowercase().as_str() {
            "open" => true,
            "closed" => false,
            other => return Err(invalid("REGISTRATION", format!("'{other}' is not 'open' or 'closed'"))),
        };
        Ok(Self {
            webhooks: WebhookSettings::read(&env)?,
            registration_open,
            metrics_token,
            database_url,
            database_pool_size,
            database_event_pool_size,
            http_workers,
            database_limits,
            request_timeout,
            import_max_bytes,
            import_runner: env.boolean("IMPORT_RUNNER", true)?,
            jwt_secret,
            jwt_issuer: env.string("JWT_ISSUER", "tally"),
            bind_addr: env.string("BIND_ADDR", "127.0.0.1:8080"),
            redis_url,
            redis_key_prefix: env.string("REDIS_KEY_PREFIX", "tally"),
            bus,
            rate_limit_enabled: env.boolean("RATE_LIMIT_ENABLED", true)?,
            trusted_proxies,
            login_max_failed_attempts,
            login_lock_duration: env.duration("LOGIN_LOCK_DURATION", Duration::from_secs(15 * 60))?,
            bcrypt_cost,
            reporting_currency,
            admin_email,
            admin_password,
            admin_name: env.get("ADMIN_NAME"),
            log_format,
            cors_allowed_origins: env.list("CORS_ALLOWED_ORIGINS", &["*"]),
        })
    }

    /// `serve` cannot run without a signing secret, nor with one anybody can
    /// read in this project's files.
    pub fn require_jwt_secret(&self) -> Result<&str, ConfigError> {
        let secret = self.jwt_secret.as_deref().ok_or_else(|| {
            invalid("JWT_SECRET", format!("is required to serve (at least {MIN_JWT_SECRET_BYTES} bytes); `make run` supplies a development one"))
        })?;
        if PUBLISHED_EXAMPLE_SECRETS.contains(&secret) {
            return Err(invalid(
                "JWT_SECRET",
                "is an example published with Tally; generate a random one (e.g. `openssl rand -base64 48`)",
            ));
        }
        Ok(secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn settings(pairs: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Settings::from_lookup(&move |name| map.get(name).cloned())
    }

    #[test]
    fn defaults_match_the_decisions() {
        let s = settings(&[("LOG_FORMAT", "json")]).expect("valid");
        assert_eq!(s.database_url, DEFAULT_DATABASE_URL);
        assert_eq!((s.database_pool_size, s.database_event_pool_size), (16, 8));
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        assert_eq!(s.http_workers, cpus);
        assert_eq!(settings(&[("HTTP_WORKERS", "3")]).expect("valid").http_workers, 3);
        assert_eq!(s.jwt_issuer, "tally");
        assert_eq!(s.bind_addr, "127.0.0.1:8080");
        assert_eq!(s.bus.kind, EventBusKind::InProcess);
        assert_eq!((s.bus.worker_pool_size, s.bus.buffer_size, s.bus.retry.attempts), (50, 10_000, 5));
        assert_eq!(s.bus.retry.initial_delay, Duration::from_secs(1));
        assert_eq!(s.bus.retry.max_delay, Duration::from_secs(30));
        assert!(s.rate_limit_enabled);
        assert_eq!((s.login_max_failed_attempts, s.login_lock_duration), (5, Duration::from_secs(900)));
        assert_eq!(s.bcrypt_cost, 12);
        assert_eq!(s.reporting_currency.as_str(), "USD");
        assert_eq!(s.cors_allowed_origins, vec!["*".to_owned()]);
        assert!(s.require_jwt_secret().is_err());
        assert!(s.registration_open);
        assert!(s.metrics_token.is_none());
        assert!(!settings(&[("REGISTRATION", "closed")]).expect("valid").registration_open);
    }

    #[test]
    fn bad_values_name_the_variable() {
        let cases: &[(&str, &str)] = &[
            ("JWT_SECRET", "short"),
            ("DATABASE_POOL_SIZE", "many"),
            ("DATABASE_EVENT_POOL_SIZE", "0"),
            ("HTTP_WORKERS", "0"),
            ("HTTP_WORKERS", "257"),
            ("DATABASE_URL", "mysql://x"),
            ("EVENT_BUS", "kafka"),
            ("BUS_RETRY_DELAY", "soon"),
            ("BCRYPT_COST", "3"),
            ("RATE_LIMIT_ENABLED", "maybe"),
            ("REPORTING_CURRENCY", "DOLLARS"),
            ("LOG_FORMAT", "xml"),
            ("REGISTRATION", "invite-only"),
            ("METRICS_TOKEN", "0123456789abcdef0123456789abcde"),
        ];
        for (name, value) in cases {
            let error = settings(&[(name, value)]).expect_err(name);
            assert_eq!(&error.name, name, "{error}");
        }
        let error = settings(&[("EVENT_BUS", "redis")]).expect_err("needs redis");
        assert_eq!(error.name, "EVENT_BUS");
    }

    #[test]
    fn published_example_secrets_are_refused() {
        for secret in PUBLISHED_EXAMPLE_SECRETS {
            let s = settings(&[("JWT_SECRET", secret)]).expect("long enough to parse");
            assert_eq!(s.require_jwt_secret().map_err(|e| e.name), Err("JWT_SECRET"), "{secret}");
        }
    }

    /// Every `JWT_SECRET=value` written in README, docs/ or deploy/ is refused by `serve`.
    #[test]
    fn every_secret_in_the_published_files_is_listed() {
        // cargo runs a crate's tests from the crate's own directory; the project root is two up.
        let root = std::path::Path::new("../..");
        let mut files = vec![root.join("README.md")];
        for dir in ["docs", "docs/adr", "deploy"] {
            if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
                files.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_file()));
            }
        }
        let mut seen = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (_, rest) in text.match_indices("JWT_SECRET=").map(|(i, _)| text.split_at(i + "JWT_SECRET=".len())) {
                let value: String = rest
                    .trim_start_matches(['"', '\''])
                    .chars()
                    .take_while(|c| !c.is_whitespace() && !"\"'`$".contains(*c))
                    .collect();
                if value.len() >= MIN_JWT_SECRET_BYTES {
                    seen += 1;
                    assert!(
                        PUBLISHED_EXAMPLE_SECRETS.contains(&value.as_str()),
                        "{}: {value} is not refused",
                        file.display()
                    );
                }
            }
        }
        assert!(seen >= 1, "the deploy example should be found");
    }

    #[test]
    fn durations_and_lists_parse() {
        let s = settings(&[
            ("BUS_RETRY_DELAY", "500ms"),
            ("LOGIN_LOCK_DURATION", "2m"),
            ("TRUSTED_PROXIES", "10.0.0.1, 192.168.0.0/16"),
            ("JWT_SECRET", "0123456789abcdef0123456789abcdef"),
        ])
        .expect("valid");
        assert_eq!(s.bus.retry.initial_delay, Duration::from_millis(500));
        assert_eq!(s.login_lock_duration, Duration::from_secs(120));
        assert_eq!(s.trusted_proxies, vec!["10.0.0.1".to_owned(), "192.168.0.0/16".to_owned()]);
        assert!(s.require_jwt_secret().is_ok());
        assert!(!format!("{s:?}").contains("0123456789abcdef"));
    }
}
