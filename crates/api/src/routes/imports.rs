//! Bulk imports (docs/imports-and-exports.md): the upload, the job, its errors, cancel. A caller
//! sees their own jobs; administrators see every job. Another caller's job is `NOT_FOUND`.

mod upload;
pub mod views;

use actix_web::http::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use bulk_data::{Format, ImportJob, ImportMode, ImportOptions, ImportResource, InvalidTransition};
use import_postgres::CancelOutcome;
use time::OffsetDateTime;
use uuid::Uuid;

use self::views::{ImportFile, ImportJobView, ImportRowErrorView, UploadQuery};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::{list, ok, ApiError, PageQuery};

/// The upload's route: its body is streamed, not read whole first (`http::whole_body`), and it is
/// not replayed under an `Idempotency-Key` (each upload is a job of its own).
pub const UPLOAD_PATTERN: &str = "/api/v1/imports/{resource:[a-z]+}";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/imports").route(web::get().to(list_jobs)))
        .service(web::resource("/imports/{resource:[a-z]+}").route(web::post().to(upload_file)))
        .service(web::resource("/imports/{id}").route(web::get().to(get_job)))
        .service(web::resource("/imports/{id}/errors").route(web::get().to(list_errors)))
        .service(web::resource("/imports/{id}/cancel").route(web::post().to(cancel_job)));
}

/// Whose jobs the caller sees: their own, or every job for an administrator.
fn owner(caller: &Caller) -> Option<Uuid> {
    (!caller.is_admin()).then_some(caller.user_id)
}

fn job_not_found() -> ApiError {
    ApiError::not_found("no such import job")
}

fn flag(value: Option<bool>) -> bool {
    value.unwrap_or(false)
}

#[utoipa::path(post, path = "/api/v1/imports/{resource}", tag = "imports",
    params(("resource" = String, Path, description = "customers, companies, products or inventory"), UploadQuery),
    request_body(description = "The file: CSV (RFC 4180, UTF-8, header row first) or JSONL (one JSON object a line)",
        content((ImportFile = "text/csv"), (ImportFile = "application/x-ndjson"))),
    responses((status = 202, body = ImportJobView, description = "Queued; `Location` names the job",
               headers(("Location" = String, description = "/api/v1/imports/{id}"))),
              (status = 400, description = "VALIDATION_ERROR: the header (unknown, missing or doubled columns, named in \
               details), bytes that are not UTF-8, an unclosed quote, an empty file, a bad query"),
              (status = 403, description = "Lacks imports:create, or the resource's create (and update for upsert)"),
              (status = 413, description = "PAYLOAD_TOO_LARGE: over IMPORT_MAX_BYTES (from Content-Length, before the body)"),
              (status = 415, description = "UNSUPPORTED_MEDIA_TYPE: neither text/csv nor application/x-ndjson")),
    security(("bearer" = [])))]
pub async fn upload_file(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    resource: web::Path<String>,
    query: web::Query<UploadQuery>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let resource = ImportResource::parse(&resource).ok_or_else(|| ApiError::not_found("no such import resource"))?;
    let mode = match query.mode.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
        None => ImportMode::Create,
        Some(name) => ImportMode::parse(name).ok_or_else(|| ApiError::field("mode", "must be create or upsert"))?,
    };
    for (resource, action) in crate::imports::permissions_needed(resource, mode) {
        caller.require(resource, action)?;
    }
    let content_type = req.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let format = Format::from_content_type(content_type).ok_or_else(|| {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "the file must be sent as text/csv or application/x-ndjson",
        )
    })?;
    let max = state.settings.import_max_bytes;
    let announced =
        req.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > max) {
        return Err(upload::too_large(max));
    }
    let options = ImportOptions { mode, dry_run: flag(query.dry_run), atomic: flag(query.atomic) };
    let job =
        ImportJob::new(shared_kernel::new_id(), resource, format, options, caller.user_id, OffsetDateTime::now_utc());
    let job = upload::stream(&state.imports, &job, payload, max, state.settings.request_timeout).await?;
    state.import_runner.notify();
    let location = format!("/api/v1/imports/{}", job.id);
    Ok(HttpResponse::Accepted()
        .insert_header((LOCATION, location))
        .json(serde_json::json!({"status": "success", "data": ImportJobView::from(job)})))
}

#[utoipa::path(get, path = "/api/v1/imports", tag = "imports", params(PageQuery),
    responses((status = 200, body = [ImportJobView], description = "The caller's jobs (every job for admins), newest first")),
    security(("bearer" = [])))]
pub async fn list_jobs(
    state: web::Data<AppState>,
    caller: Caller,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let jobs = state.imports.list(owner(&caller), page.request()?).await?;
    Ok(list(jobs.map(ImportJobView::from)))
}

#[utoipa::path(get, path = "/api/v1/imports/{id}", tag = "imports", params(("id" = Uuid, Path)),
    responses((status = 200, body = ImportJobView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_job(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let job = state.imports.get(id.into_inner(), owner(&caller)).await?.ok_or_else(job_not_found)?;
    Ok(ok(ImportJobView::from(job)))
}

#[utoipa::path(get, path = "/api/v1/imports/{id}/errors", tag = "imports", params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [ImportRowErrorView], description = "By row, then in the order found"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn list_errors(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let page = page.request()?;
    state.imports.get(id, owner(&caller)).await?.ok_or_else(job_not_found)?;
    let errors = state.imports.errors(id, page).await?;
    Ok(list(errors.map(ImportRowErrorView::from)))
}

#[utoipa::path(post, path = "/api/v1/imports/{id}/cancel", tag = "imports", params(("id" = Uuid, Path)),
    responses((status = 200, body = ImportJobView, description = "Cancelled: rows of batches committed before stay"),
              (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: the job has finished")),
    security(("bearer" = [])))]
pub async fn cancel_job(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    match state.imports.cancel(id.into_inner(), owner(&caller), OffsetDateTime::now_utc()).await? {
        CancelOutcome::Cancelled(job) => Ok(ok(ImportJobView::from(job))),
        CancelOutcome::NotFound => Err(job_not_found()),
        CancelOutcome::Finished(from) => {
            let refused = InvalidTransition { from, trigger: "cancel" };
            Err(ApiError::conflict(refused.code(), refused.to_string()))
        }
    }
}
