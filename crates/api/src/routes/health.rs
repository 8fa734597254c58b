//! Health endpoints (no authentication, no envelope).
//!
//! Every endpoint answers from one probe of the three dependencies, run at most once a second per
//! instance and shared by every caller that asks meanwhile, on a connection of its own: a flood of
//! health requests costs the database one probe a second and never takes a request's connection
//! (docs/bounded-work.md).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, HttpResponse};
use serde::Serialize;
use shared_kernel::ports::{HealthCheck, HealthStatus};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::app::AppState;

/// All checks together must finish within this.
pub const HEALTH_BUDGET: Duration = Duration::from_secs(5);
/// How long one probe's answer serves every caller.
pub const PROBE_FRESH_FOR: Duration = Duration::from_secs(1);

/// The shared probe: its own one-connection pool and its last answer.
pub struct HealthProbe {
    pool: postgres_toolkit::DbPool,
    last: tokio::sync::Mutex<Option<(Instant, Arc<Checks>)>>,
}

impl HealthProbe {
    /// `pool` is the probe's alone (one connection), never the requests'.
    pub fn new(pool: postgres_toolkit::DbPool) -> Self {
        Self { pool, last: tokio::sync::Mutex::new(None) }
    }

    /// The last probe's checks when younger than [`PROBE_FRESH_FOR`], else a new probe's. Callers that
    /// come while a probe runs wait for it (the lock) and share its answer.
    async fn checks(&self, state: &AppState) -> Arc<Checks> {
        let mut last = self.last.lock().await;
        if let Some((at, checks)) = last.as_ref() {
            if at.elapsed() < PROBE_FRESH_FOR {
                return checks.clone();
            }
        }
        let (database, kvstore, event_bus) = tokio::join!(
            timed("PostgreSQL", HEALTH_BUDGET, check_database(&self.pool)),
            timed("Key-value store", HEALTH_BUDGET, state.kv.health()),
            timed("Event bus", HEALTH_BUDGET, state.bus.health()),
        );
        let checks = Arc::new(Checks { database, kvstore, event_bus });
        *last = Some((Instant::now(), checks.clone()));
        checks
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CheckResult {
    /// Display label of the dependency.
    pub name: &'static str,
    #[schema(value_type = String, example = "healthy")]
    pub status: HealthStatus,
    pub message: String,
    /// Milliseconds the check took.
    pub duration_ms: u64,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub timestamp: OffsetDateTime,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Checks {
    pub database: CheckResult,
    pub kvstore: CheckResult,
    pub event_bus: CheckResult,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HealthReport {
    #[schema(value_type = String, example = "healthy")]
    pub status: HealthStatus,
    pub checks: Checks,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub timestamp: OffsetDateTime,
    pub version: &'static str,
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/health").route(web::get().to(health)))
        .service(web::resource("/health/db").route(web::get().to(health_db)))
        .service(web::resource("/health/kvstore").route(web::get().to(health_kvstore)))
        .service(web::resource("/health/bus").route(web::get().to(health_bus)));
}

/// Runs one check within `budget`; running out of time is unhealthy.
async fn timed(name: &'static str, budget: Duration, check: impl Future<Output = HealthCheck>) -> CheckResult {
    let started = Instant::now();
    let outcome = tokio::time::timeout(budget, check)
        .await
        .unwrap_or_else(|_| HealthCheck::unhealthy(format!("check timed out after {} s", budget.as_secs())));
    CheckResult {
        name,
        status: outcome.status,
        message: outcome.message,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        timestamp: OffsetDateTime::now_utc(),
    }
}

/// A trivial query on our own schema: unreachable fails to connect, a broken schema fails the query.
async fn check_database(pool: &postgres_toolkit::DbPool) -> HealthCheck {
    if let Err(error) = postgres_toolkit::db::ping(pool).await {
        tracing::warn!(%error, "database ping failed");
        return HealthCheck::unhealthy("database unreachable");
    }
    match postgres_toolkit::db::schema_probe(pool).await {
        Ok(()) => HealthCheck::healthy("database reachable"),
        Err(error) => {
            tracing::warn!(%error, "database query failed");
            HealthCheck::degraded("database reachable, but a query on the schema failed")
        }
    }
}

fn respond<T: Serialize>(status: HealthStatus, body: &T) -> HttpResponse {
    let mut builder =
        if status == HealthStatus::Unhealthy { HttpResponse::ServiceUnavailable() } else { HttpResponse::Ok() };
    builder.insert_header(("Cache-Control", "no-store")).json(body)
}

#[utoipa::path(get, path = "/health", tag = "health",
    responses((status = 200, description = "Healthy or degraded", body = HealthReport),
              (status = 503, description = "A dependency is unhealthy", body = HealthReport)))]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let checks = state.health.checks(&state).await;
    let status = [checks.database.status, checks.kvstore.status, checks.event_bus.status]
        .into_iter()
        .max()
        .unwrap_or(HealthStatus::Healthy);
    let report = HealthReport {
        status,
        checks: Checks::clone(&checks),
        timestamp: OffsetDateTime::now_utc(),
        version: env!("CARGO_PKG_VERSION"),
    };
    respond(status, &report)
}

#[utoipa::path(get, path = "/health/db", tag = "health",
    responses((status = 200, body = CheckResult), (status = 503, body = CheckResult)))]
pub async fn health_db(state: web::Data<AppState>) -> HttpResponse {
    let result = &state.health.checks(&state).await.database;
    respond(result.status, result)
}

#[utoipa::path(get, path = "/health/kvstore", tag = "health",
    responses((status = 200, body = CheckResult), (status = 503, body = CheckResult)))]
pub async fn health_kvstore(state: web::Data<AppState>) -> HttpResponse {
    let result = &state.health.checks(&state).await.kvstore;
    respond(result.status, result)
}

#[utoipa::path(get, path = "/health/bus", tag = "health",
    responses((status = 200, body = CheckResult), (status = 503, body = CheckResult)))]
pub async fn health_bus(state: web::Data<AppState>) -> HttpResponse {
    let result = &state.health.checks(&state).await.event_bus;
    respond(result.status, result)
}
