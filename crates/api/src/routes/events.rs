//! The event log and dead letters.

use actix_web::{web, HttpResponse};
use postgres_toolkit::events::log::{list_events, EventFilter, RecordedEvent};
use postgres_toolkit::events::DeadLetter;
use serde::{Deserialize, Serialize};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::app::AppState;
use crate::http::{list, ok, ApiError, PageQuery};

#[derive(Debug, Serialize, ToSchema)]
pub struct EventRecord {
    pub id: Uuid,
    #[schema(example = "order.confirmed")]
    pub name: String,
    pub aggregate_id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub occurred_at: OffsetDateTime,
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    /// When the relay handed it to the bus.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub published_at: Option<OffsetDateTime>,
}

impl From<RecordedEvent> for EventRecord {
    fn from(e: RecordedEvent) -> Self {
        Self {
            id: e.id,
            name: e.name,
            aggregate_id: e.aggregate_id,
            occurred_at: e.occurred_at,
            data: e.data,
            published_at: e.published_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeadLetterRecord {
    pub id: Uuid,
    pub event_id: Uuid,
    pub event_name: String,
    /// The handler that gave up.
    pub handler: String,
    /// The whole event envelope.
    #[schema(value_type = Object)]
    pub event: serde_json::Value,
    pub last_error: String,
    pub attempts: i32,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub failed_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub requeued_at: Option<OffsetDateTime>,
}

impl From<DeadLetter> for DeadLetterRecord {
    fn from(d: DeadLetter) -> Self {
        Self {
            id: d.id,
            event_id: d.event_id,
            event_name: d.event_name,
            handler: d.handler,
            event: d.event,
            last_error: d.last_error,
            attempts: d.attempts,
            failed_at: d.failed_at,
            requeued_at: d.requeued_at,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    /// Exact event name, e.g. `order.confirmed`.
    pub name: Option<String>,
    #[param(format = Uuid)]
    pub aggregate_id: Option<String>,
    /// RFC 3339 timestamp (years 1900..=2200); events at or after it.
    #[param(format = DateTime)]
    pub since: Option<String>,
}

/// Inside the `/api/v1/events` scope (`app.rs`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("").route(web::get().to(events)))
        .service(web::resource("/dead-letters").route(web::get().to(dead_letters)))
        .service(web::resource("/dead-letters/{id}/retry").route(web::post().to(retry_dead_letter)));
}

#[utoipa::path(get, path = "/api/v1/events", tag = "events", params(EventQuery),
    responses((status = 200, description = "Recorded events, newest first", body = [EventRecord]), (status = 400, description = "Bad filter")),
    security(("bearer" = [])))]
pub async fn events(state: web::Data<AppState>, query: web::Query<EventQuery>) -> Result<HttpResponse, ApiError> {
    let request = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let aggregate_id = match query.aggregate_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => Some(Uuid::try_parse(raw).map_err(|_| ApiError::invalid_uuid("aggregate_id"))?),
        None => None,
    };
    let since = crate::routes::query_params::timestamp("since", &query.since)?;
    let filter = EventFilter { name: query.name.clone().filter(|n| !n.trim().is_empty()), aggregate_id, since };
    let page = list_events(&state.pool, &filter, request).await?;
    Ok(list(page.map(EventRecord::from)))
}

#[utoipa::path(get, path = "/api/v1/events/dead-letters", tag = "events", params(PageQuery),
    responses((status = 200, description = "Dead letters not yet re-queued, newest first", body = [DeadLetterRecord])),
    security(("bearer" = [])))]
pub async fn dead_letters(state: web::Data<AppState>, query: web::Query<PageQuery>) -> Result<HttpResponse, ApiError> {
    let page = state.dead_letters.list(query.request()?).await?;
    Ok(list(page.map(DeadLetterRecord::from)))
}

#[utoipa::path(post, path = "/api/v1/events/dead-letters/{id}/retry", tag = "events",
    params(("id" = Uuid, Path, description = "Dead letter id")),
    responses((status = 200, description = "Re-queued for its handler", body = DeadLetterRecord),
              (status = 404, description = "No open dead letter with this id")),
    security(("bearer" = [])))]
pub async fn retry_dead_letter(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let Some(letter) = state.dead_letters.take_for_retry(id).await? else {
        return Err(ApiError::not_found("no open dead letter with this id"));
    };
    let event: EventEnvelope = serde_json::from_value(letter.event.clone()).map_err(ApiError::internal)?;
    if let Err(error) = state.bus.redeliver(&event, &letter.handler).await {
        state.dead_letters.reopen(id).await?;
        return Err(ApiError::unavailable(error));
    }
    Ok(ok(DeadLetterRecord::from(letter)))
}
