//! Roles, their permissions, and users' roles (admin only).

use actix_web::{web, HttpResponse};
use identity_domain::roles::{parse_display_name, NewRole, PermissionRecord, RoleChanges, RoleRecord};
use identity_domain::{IdentityError, Missing, RoleName};
use uuid::Uuid;

use super::actor;
use super::requests::{AssignBody, CreateRoleBody, GrantBody, UpdateRoleBody};
use super::responses::{MessageView, PermissionView, PermissionsGranted, RoleView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{no_content, ok, ApiError, Json};

impl From<RoleRecord> for RoleView {
    fn from(r: RoleRecord) -> Self {
        Self {
            id: r.id,
            name: r.name,
            display_name: r.display_name,
            description: r.description,
            is_system: r.is_system,
            permissions_count: r.permissions_count,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

impl From<PermissionRecord> for PermissionView {
    fn from(p: PermissionRecord) -> Self {
        Self {
            id: p.id,
            resource: p.resource,
            action: p.action,
            name: p.name,
            description: p.description,
            created_at: p.created_at,
        }
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/roles").route(web::post().to(create_role)).route(web::get().to(list_roles)))
        .service(web::resource("/roles/name/{name}").route(web::get().to(role_by_name)))
        .service(
            web::resource("/roles/{id}")
                .route(web::get().to(get_role))
                .route(web::put().to(update_role))
                .route(web::delete().to(delete_role)),
        )
        .service(
            web::resource("/roles/{id}/permissions")
                .route(web::post().to(grant_permissions))
                .route(web::get().to(role_permissions)),
        )
        .service(web::resource("/roles/{id}/permissions/{permission_id}").route(web::delete().to(revoke_permission)))
        .service(web::resource("/users/{id}/roles").route(web::post().to(assign_role)).route(web::get().to(user_roles)))
        .service(web::resource("/users/{id}/roles/{role_id}").route(web::delete().to(unassign_role)));
}

fn role_not_found() -> ApiError {
    IdentityError::NotFound(Missing::Role).into()
}

#[utoipa::path(post, path = "/api/v1/identity/roles", tag = "identity", request_body = CreateRoleBody,
    responses((status = 201, body = RoleView), (status = 409, description = "ALREADY_EXISTS")), security(("bearer" = [])))]
pub async fn create_role(
    state: web::Data<AppState>,
    Json(body): Json<CreateRoleBody>,
) -> Result<HttpResponse, ApiError> {
    let role = NewRole {
        name: RoleName::parse(&body.name)?,
        display_name: parse_display_name(&body.display_name)?,
        description: body.description.unwrap_or_default().trim().to_owned(),
    };
    let role = state.identity.app.roles.create_role(role).await?;
    Ok(created_tagged::<RoleView, _>(role))
}

#[utoipa::path(get, path = "/api/v1/identity/roles", tag = "identity",
    responses((status = 200, body = [RoleView])), security(("bearer" = [])))]
pub async fn list_roles(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let roles = state.identity.roles.list_roles().await.map_err(ApiError::from)?;
    Ok(ok(roles.into_iter().map(RoleView::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/api/v1/identity/roles/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = RoleView), (status = 404, description = "NOT_FOUND")), security(("bearer" = [])))]
pub async fn get_role(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let role =
        state.identity.roles.find_role(id.into_inner()).await.map_err(ApiError::from)?.ok_or_else(role_not_found)?;
    Ok(ok_tagged::<RoleView, _>(role))
}

#[utoipa::path(get, path = "/api/v1/identity/roles/name/{name}", tag = "identity", params(("name" = String, Path)),
    responses((status = 200, body = RoleView), (status = 404, description = "NOT_FOUND")), security(("bearer" = [])))]
pub async fn role_by_name(state: web::Data<AppState>, name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let role =
        state.identity.roles.find_role_by_name(&name).await.map_err(ApiError::from)?.ok_or_else(role_not_found)?;
    Ok(ok_tagged::<RoleView, _>(role))
}

#[utoipa::path(put, path = "/api/v1/identity/roles/{id}", tag = "identity", params(("id" = Uuid, Path)), request_body = UpdateRoleBody,
    responses((status = 200, body = RoleView),
              (status = 403, description = "Renaming a system role; FORBIDDEN: the superadmin role and the caller is not a superadmin"),
              (status = 404),
              (status = 409, description = "ALREADY_EXISTS: another role has this name")),
    security(("bearer" = [])))]
pub async fn update_role(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateRoleBody>,
) -> Result<HttpResponse, ApiError> {
    let changes = RoleChanges {
        name: body.name.as_deref().map(RoleName::parse).transpose()?,
        display_name: body.display_name.as_deref().map(parse_display_name).transpose()?,
        description: body.description.map(|d| d.trim().to_owned()),
    };
    let role = state.identity.app.roles.update_role(&actor(&caller), id.into_inner(), changes).await?;
    Ok(ok_tagged::<RoleView, _>(role))
}

#[utoipa::path(delete, path = "/api/v1/identity/roles/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204), (status = 403, description = "System role"), (status = 404)), security(("bearer" = [])))]
pub async fn delete_role(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.identity.app.roles.delete_role(id.into_inner()).await?;
    Ok(no_content())
}

#[utoipa::path(post, path = "/api/v1/identity/roles/{id}/permissions", tag = "identity", params(("id" = Uuid, Path)), request_body = GrantBody,
    responses((status = 200, body = PermissionsGranted), (status = 400, description = "VALIDATION_ERROR: empty or over 200 ids"),
              (status = 403, description = "FORBIDDEN: not an administrator, or the superadmin role and the caller is not a superadmin"),
              (status = 404, description = "Unknown role or permission")),
    security(("bearer" = [])))]
pub async fn grant_permissions(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<GrantBody>,
) -> Result<HttpResponse, ApiError> {
    let granted = state
        .identity
        .app
        .roles
        .grant_permissions(&actor(&caller), id.into_inner(), &body.permission_ids)
        .await
        .map_err(|error| match error {
            // The wire message is the rule alone, as `ApiError::field` writes it.
            IdentityError::Invalid { field, message } => ApiError::field(field, message),
            other => other.into(),
        })?;
    Ok(ok(PermissionsGranted { message: "permissions assigned", granted }))
}

#[utoipa::path(get, path = "/api/v1/identity/roles/{id}/permissions", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = [PermissionView]), (status = 404)), security(("bearer" = [])))]
pub async fn role_permissions(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let permissions = state.identity.app.roles.role_permissions(id.into_inner()).await?;
    Ok(ok(permissions.into_iter().map(PermissionView::from).collect::<Vec<_>>()))
}

#[utoipa::path(delete, path = "/api/v1/identity/roles/{id}/permissions/{permission_id}", tag = "identity",
    params(("id" = Uuid, Path), ("permission_id" = Uuid, Path)),
    responses((status = 204), (status = 403, description = "FORBIDDEN: not an administrator, or the superadmin role and the caller is not a superadmin"),
              (status = 404, description = "Not assigned")), security(("bearer" = [])))]
pub async fn revoke_permission(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (role_id, permission_id) = path.into_inner();
    state.identity.app.roles.revoke_permission(&actor(&caller), role_id, permission_id).await?;
    Ok(no_content())
}

#[utoipa::path(post, path = "/api/v1/identity/users/{id}/roles", tag = "identity", params(("id" = Uuid, Path)), request_body = AssignBody,
    responses((status = 200, body = MessageView, description = "Assigned, or already held"),
              (status = 403, description = "FORBIDDEN: granting superadmin, or to a superadmin, needs a superadmin"),
              (status = 404, description = "USER_NOT_FOUND or NOT_FOUND (role)")),
    security(("bearer" = [])))]
pub async fn assign_role(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<AssignBody>,
) -> Result<HttpResponse, ApiError> {
    let added = state.identity.app.roles.assign_role(&actor(&caller), id.into_inner(), body.role_id).await?;
    let message = if added { "role assigned" } else { "the user already holds this role" };
    Ok(ok(MessageView::new(message)))
}

#[utoipa::path(get, path = "/api/v1/identity/users/{id}/roles", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = [RoleView]), (status = 404, description = "USER_NOT_FOUND")), security(("bearer" = [])))]
pub async fn user_roles(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let roles = state.identity.app.roles.user_roles(id.into_inner()).await?;
    Ok(ok(roles.into_iter().map(RoleView::from).collect::<Vec<_>>()))
}

#[utoipa::path(delete, path = "/api/v1/identity/users/{id}/roles/{role_id}", tag = "identity",
    params(("id" = Uuid, Path), ("role_id" = Uuid, Path)),
    responses((status = 204),
              (status = 403, description = "FORBIDDEN: removing superadmin, or from a superadmin, needs a superadmin"),
              (status = 404, description = "Not assigned")), security(("bearer" = [])))]
pub async fn unassign_role(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (user_id, role_id) = path.into_inner();
    state.identity.app.roles.unassign_role(&actor(&caller), user_id, role_id).await?;
    Ok(no_content())
}
