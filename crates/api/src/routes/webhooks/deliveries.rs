//! An endpoint's delivery log, test pings and manual retries. A delivery's payload is the
//! event's data: showing it (`GET …/deliveries/{delivery_id}`) or sending it again (`…/retry`)
//! needs `read` on the event's resource as well (docs/webhooks.md), else 403; the list carries no
//! payloads and shows every delivery.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::IntoParams;
use uuid::Uuid;
use webhooks::access::TEST_EVENT;

use super::views::{DeliveryDetailView, DeliveryStatusView, DeliveryView};
use super::webhook_error;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::envelope::accepted;
use crate::http::{list, ApiError, PageQuery};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    /// Only deliveries in this status.
    pub status: Option<DeliveryStatusView>,
}

#[derive(Debug, Deserialize)]
pub struct DeliveryPath {
    id: Uuid,
    delivery_id: Uuid,
}

/// Whether the caller may see a payload needing `read` on `resource` (none: a test ping); through
/// an API key, the key and its owner must both allow it, as for every guard.
fn may_read_payload(caller: &Caller, resource: Option<&str>) -> Result<(), ApiError> {
    let Some(resource) = resource else { return Ok(()) };
    caller.require(resource, "read").map_err(|_| {
        let what = if resource == "*" { "every resource".to_owned() } else { format!("{resource}:read") };
        ApiError::forbidden(format!("this delivery carries data that needs {what}, which you do not hold"))
    })
}

#[utoipa::path(post, path = "/api/v1/webhooks/{id}/test", tag = "webhooks", params(("id" = Uuid, Path)),
    responses((status = 202, body = DeliveryView, description = "A `webhook.test` delivery, queued to be sent now"),
              (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "WEBHOOK_DISABLED: enable the endpoint first")),
    security(("bearer" = [])))]
pub async fn send_test(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let endpoint_id = id.into_inner();
    let delivery_id = shared_kernel::new_id();
    let data = serde_json::json!({ "message": "A test delivery from Tally" });
    let payload = webhooks::queue::payload(TEST_EVENT, OffsetDateTime::now_utc(), delivery_id, endpoint_id, &data);
    let services = &state.webhooks;
    let delivery =
        services.store.enqueue(endpoint_id, delivery_id, TEST_EVENT, &payload).await.map_err(webhook_error)?;
    services.worker.notify();
    Ok(accepted(DeliveryView::from(delivery)))
}

#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries", tag = "webhooks",
    params(("id" = Uuid, Path), DeliveryQuery),
    responses((status = 200, body = [DeliveryView], description = "The endpoint's deliveries, newest first"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn list_deliveries(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    query: web::Query<DeliveryQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let status = query.status.map(DeliveryStatusView::domain);
    let deliveries = state.webhooks.store.deliveries(id.into_inner(), status, page).await.map_err(webhook_error)?;
    Ok(list(deliveries.map(DeliveryView::from)))
}

#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}", tag = "webhooks",
    params(("id" = Uuid, Path), ("delivery_id" = Uuid, Path)),
    responses((status = 200, body = DeliveryDetailView, description = "The delivery, its body and every attempt"),
              (status = 403, description = "FORBIDDEN: the caller may not read the event's resource \
                (`customers:read` for a `customer.*` event, ...)"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_delivery(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DeliveryPath>,
) -> Result<HttpResponse, ApiError> {
    let detail = state.webhooks.store.delivery(path.id, path.delivery_id).await.map_err(webhook_error)?;
    may_read_payload(&caller, detail.read_resource.as_deref())?;
    Ok(crate::http::ok(DeliveryDetailView::from(detail)))
}

#[utoipa::path(post, path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", tag = "webhooks",
    params(("id" = Uuid, Path), ("delivery_id" = Uuid, Path)),
    responses((status = 202, body = DeliveryView, description = "Queued to be sent now, with the same webhook-id"),
              (status = 403, description = "FORBIDDEN: the caller may not read the event's resource"),
              (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "WEBHOOK_DISABLED, or DELIVERY_IN_PROGRESS while an attempt is under way")),
    security(("bearer" = [])))]
pub async fn retry_delivery(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<DeliveryPath>,
) -> Result<HttpResponse, ApiError> {
    let services = &state.webhooks;
    // What a delivery carries never changes, so the check may come before the retry.
    let resource = services.store.read_resource(path.id, path.delivery_id).await.map_err(webhook_error)?;
    may_read_payload(&caller, resource.as_deref())?;
    let delivery = services.store.retry(path.id, path.delivery_id).await.map_err(webhook_error)?;
    services.worker.notify();
    Ok(accepted(DeliveryView::from(delivery)))
}
