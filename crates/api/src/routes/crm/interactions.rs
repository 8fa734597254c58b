//! Interactions: log, read, delete, and the lists (with customer, company and creator names).
//! Edits of a logged interaction are in `interaction_edits.rs`.

use actix_web::{web, HttpResponse};
use crm_domain::{FollowUpFilter, InteractionFilter, InteractionType, NewInteraction};
use uuid::Uuid;

use super::requests::{CreateInteractionBody, FollowUpQuery, InteractionTypeName};
use super::responses::{InteractionListItem, InteractionView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, no_content, ApiError, Json, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    let base = "/interactions";
    cfg.service(web::resource(base).route(web::post().to(create_interaction)).route(web::get().to(list_interactions)))
        .service(web::resource(format!("{base}/follow-ups")).route(web::get().to(follow_ups)))
        .service(web::resource(format!("{base}/customer/{{id}}")).route(web::get().to(by_customer)))
        .service(web::resource(format!("{base}/company/{{id}}")).route(web::get().to(by_company)))
        .service(web::resource(format!("{base}/type/{{type}}")).route(web::get().to(by_type)))
        .service(web::resource(format!("{base}/created-by/{{id}}")).route(web::get().to(by_creator)))
        .service(
            web::resource(format!("{base}/{{id}}"))
                .route(web::get().to(get_interaction))
                .route(web::delete().to(delete_interaction)),
        );
}

async fn listed(state: &AppState, filter: InteractionFilter, page: &PageQuery) -> Result<HttpResponse, ApiError> {
    let rows = state.crm.interaction_cases.list(&filter, page.request()?).await?;
    Ok(list(rows.map(InteractionListItem::from)))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/interactions", tag = "customer management",
    request_body = CreateInteractionBody,
    responses((status = 201, body = InteractionView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "CUSTOMER_NOT_FOUND / NOT_FOUND (company) / USER_NOT_FOUND (attendee)")),
    security(("bearer" = [])))]
pub async fn create_interaction(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<CreateInteractionBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewInteraction {
        customer_id: body.customer_id,
        company_id: body.company_id,
        interaction_type: body.interaction_type,
        direction: body.direction,
        subject: body.subject,
        description: body.description,
        created_by: caller.user_id,
        attendees: body.attendees,
        started_at: body.started_at,
    };
    let saved = state.crm.interaction_cases.create(input).await?;
    Ok(created_tagged::<InteractionView, _>(saved))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions", tag = "customer management", params(PageQuery),
    responses((status = 200, body = [InteractionListItem], description = "All, newest started_at first")),
    security(("bearer" = [])))]
pub async fn list_interactions(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    listed(&state, InteractionFilter::default(), &page).await
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/customer/{id}", tag = "customer management",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [InteractionListItem]), (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn by_customer(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let rows = state.crm.interaction_cases.of_customer(id.into_inner(), page.request()?).await?;
    Ok(list(rows.map(InteractionListItem::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/company/{id}", tag = "customer management",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [InteractionListItem]), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn by_company(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let rows = state.crm.interaction_cases.of_company(id.into_inner(), page.request()?).await?;
    Ok(list(rows.map(InteractionListItem::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/type/{type}", tag = "customer management",
    params(("type" = inline(InteractionTypeName), Path, description = "An interaction type, any case"), PageQuery),
    responses((status = 200, body = [InteractionListItem]), (status = 400, description = "VALIDATION_ERROR")),
    security(("bearer" = [])))]
pub async fn by_type(
    state: web::Data<AppState>,
    kind: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let kind = InteractionType::parse(&kind).map_err(|e| ApiError::field("type", e.to_string()))?;
    listed(&state, InteractionFilter { interaction_type: Some(kind), ..InteractionFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/created-by/{id}", tag = "customer management",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [InteractionListItem])),
    security(("bearer" = [])))]
pub async fn by_creator(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    listed(&state, InteractionFilter { created_by: Some(id.into_inner()), ..InteractionFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/follow-ups", tag = "customer management",
    params(FollowUpQuery, PageQuery),
    responses((status = 200, body = [InteractionListItem], description = "follow_up_required, oldest follow_up_date first"),
              (status = 400, description = "VALIDATION_ERROR / INVALID_UUID")),
    security(("bearer" = [])))]
pub async fn follow_ups(
    state: web::Data<AppState>,
    query: web::Query<FollowUpQuery>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.request()?;
    let due_before = query_params::timestamp("due_before", &query.due_before)?;
    let created_by = match query.created_by.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => Some(shared_kernel::id::parse_id(text).ok_or_else(|| ApiError::invalid_uuid("created_by"))?),
        None => None,
    };
    let filter = FollowUpFilter { due_before, created_by };
    let rows = state.crm.interaction_cases.follow_ups(&filter, page).await?;
    Ok(list(rows.map(InteractionListItem::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/interactions/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = InteractionView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_interaction(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<InteractionView, _>(state.crm.interaction_cases.get(id.into_inner()).await?))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/interactions/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_interaction(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.crm.interaction_cases.delete(id.into_inner()).await?;
    Ok(no_content())
}
