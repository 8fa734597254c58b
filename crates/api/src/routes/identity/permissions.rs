//! Permissions (admin only). `name` is derived as `resource:action`.

use actix_web::{web, HttpResponse};
use identity_domain::ports::RepoError;
use identity_domain::PermissionName;
use uuid::Uuid;

use super::contacts::identity_error;

use super::requests::{CreatePermissionBody, UpdatePermissionBody};
use super::responses::PermissionView;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{no_content, ok, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/permissions").route(web::post().to(create_permission)).route(web::get().to(list_permissions)),
    )
    .service(web::resource("/permissions/name/{name}").route(web::get().to(permission_by_name)))
    .service(
        web::resource("/permissions/{id}")
            .route(web::get().to(get_permission))
            .route(web::put().to(update_permission))
            .route(web::delete().to(delete_permission)),
    );
}

fn not_found() -> ApiError {
    ApiError::not_found("no such permission")
}

fn write_error(error: RepoError) -> ApiError {
    match error {
        RepoError::Conflict { .. } => ApiError::conflict("ALREADY_EXISTS", "this resource:action pair already exists"),
        RepoError::NotFound => not_found(),
        other => ApiError::from(other),
    }
}

#[utoipa::path(post, path = "/api/v1/identity/permissions", tag = "identity", request_body = CreatePermissionBody,
    responses((status = 201, body = PermissionView), (status = 409, description = "ALREADY_EXISTS")), security(("bearer" = [])))]
pub async fn create_permission(
    state: web::Data<AppState>,
    Json(body): Json<CreatePermissionBody>,
) -> Result<HttpResponse, ApiError> {
    let name = PermissionName::new(&body.resource, &body.action).map_err(identity_error)?;
    let description = body.description.unwrap_or_default().trim().to_owned();
    let permission = state.identity.roles.create_permission(name, description).await.map_err(write_error)?;
    Ok(created_tagged::<PermissionView, _>(permission))
}

#[utoipa::path(get, path = "/api/v1/identity/permissions", tag = "identity",
    responses((status = 200, body = [PermissionView])), security(("bearer" = [])))]
pub async fn list_permissions(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let permissions = state.identity.roles.list_permissions().await.map_err(ApiError::from)?;
    Ok(ok(permissions.into_iter().map(PermissionView::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/api/v1/identity/permissions/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = PermissionView), (status = 404)), security(("bearer" = [])))]
pub async fn get_permission(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let permission =
        state.identity.roles.find_permission(id.into_inner()).await.map_err(ApiError::from)?.ok_or_else(not_found)?;
    Ok(ok_tagged::<PermissionView, _>(permission))
}

#[utoipa::path(get, path = "/api/v1/identity/permissions/name/{name}", tag = "identity", params(("name" = String, Path, description = "resource:action")),
    responses((status = 200, body = PermissionView), (status = 404)), security(("bearer" = [])))]
pub async fn permission_by_name(state: web::Data<AppState>, name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let permission =
        state.identity.roles.find_permission_by_name(&name).await.map_err(ApiError::from)?.ok_or_else(not_found)?;
    Ok(ok_tagged::<PermissionView, _>(permission))
}

#[utoipa::path(put, path = "/api/v1/identity/permissions/{id}", tag = "identity", params(("id" = Uuid, Path)), request_body = UpdatePermissionBody,
    responses((status = 200, body = PermissionView), (status = 404), (status = 409, description = "ALREADY_EXISTS")), security(("bearer" = [])))]
pub async fn update_permission(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<UpdatePermissionBody>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let current = state.identity.roles.find_permission(id).await.map_err(ApiError::from)?.ok_or_else(not_found)?;
    if current.name == "*:*" {
        return Err(ApiError::forbidden("the *:* permission cannot change"));
    }
    let name = match (body.resource.as_deref(), body.action.as_deref()) {
        (None, None) => None,
        (resource, action) => Some(
            PermissionName::new(resource.unwrap_or(&current.resource), action.unwrap_or(&current.action))
                .map_err(identity_error)?,
        ),
    };
    let description = body.description.map(|d| d.trim().to_owned());
    let permission = state.identity.roles.update_permission(id, name, description).await.map_err(write_error)?;
    state.identity.access.invalidate_all().await;
    Ok(ok_tagged::<PermissionView, _>(permission))
}

#[utoipa::path(delete, path = "/api/v1/identity/permissions/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 403, description = "*:*"), (status = 404)), security(("bearer" = [])))]
pub async fn delete_permission(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let current = state.identity.roles.find_permission(id).await.map_err(ApiError::from)?.ok_or_else(not_found)?;
    if current.name == "*:*" {
        return Err(ApiError::forbidden("the *:* permission cannot be deleted"));
    }
    state.identity.roles.delete_permission(id).await.map_err(write_error)?;
    state.identity.access.invalidate_all().await;
    Ok(no_content())
}
