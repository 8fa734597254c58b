//! Permissions (admin only). `name` is derived as `resource:action`.

use actix_web::{web, HttpResponse};
use identity_domain::{IdentityError, Missing, PermissionName};
use uuid::Uuid;

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
    IdentityError::NotFound(Missing::Permission).into()
}

#[utoipa::path(post, path = "/api/v1/identity/permissions", tag = "identity", request_body = CreatePermissionBody,
    responses((status = 201, body = PermissionView), (status = 409, description = "ALREADY_EXISTS")), security(("bearer" = [])))]
pub async fn create_permission(
    state: web::Data<AppState>,
    Json(body): Json<CreatePermissionBody>,
) -> Result<HttpResponse, ApiError> {
    let name = PermissionName::new(&body.resource, &body.action)?;
    let description = body.description.unwrap_or_default().trim().to_owned();
    let permission = state.identity.app.roles.create_permission(name, description).await?;
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
    let (resource, action) = (body.resource.as_deref(), body.action.as_deref());
    let permission =
        state.identity.app.roles.update_permission(id.into_inner(), resource, action, body.description).await?;
    Ok(ok_tagged::<PermissionView, _>(permission))
}

#[utoipa::path(delete, path = "/api/v1/identity/permissions/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 403, description = "*:*"), (status = 404)), security(("bearer" = [])))]
pub async fn delete_permission(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.identity.app.roles.delete_permission(id.into_inner()).await?;
    Ok(no_content())
}
