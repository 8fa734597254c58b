//! Roles, permissions and their assignments.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Text, Timestamptz, Uuid as SqlUuid};
use diesel::IntoSql;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use identity_domain::authz::PermissionName;
use identity_domain::ports::RepoError;
use identity_domain::roles::{NewRole, PermissionRecord, RoleChanges, RoleRecord, RoleRepository};
use time::OffsetDateTime;
use uuid::Uuid;

use super::from_diesel;
use crate::schema::{permissions, role_permissions, roles, user_roles, users};
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

#[derive(QueryableByName)]
struct RoleRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    display_name: String,
    #[diesel(sql_type = Text)]
    description: String,
    #[diesel(sql_type = Bool)]
    is_system: bool,
    #[diesel(sql_type = BigInt)]
    permissions_count: i64,
    #[diesel(sql_type = Timestamptz)]
    created_at: OffsetDateTime,
    #[diesel(sql_type = Timestamptz)]
    updated_at: OffsetDateTime,
    #[diesel(sql_type = BigInt)]
    version: i64,
}

impl From<RoleRow> for RoleRecord {
    fn from(r: RoleRow) -> Self {
        RoleRecord {
            version: r.version,
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

#[derive(Queryable, Selectable)]
#[diesel(table_name = permissions)]
struct PermissionRow {
    id: Uuid,
    resource: String,
    action: String,
    name: String,
    description: String,
    created_at: OffsetDateTime,
    version: i64,
}

impl From<PermissionRow> for PermissionRecord {
    fn from(p: PermissionRow) -> Self {
        PermissionRecord {
            version: p.version,
            id: p.id,
            resource: p.resource,
            action: p.action,
            name: p.name,
            description: p.description,
            created_at: p.created_at,
        }
    }
}

/// Roles with their permission counts in one query (no N+1).
const ROLE_SELECT: &str = "SELECT r.id, r.name::text AS name, r.display_name::text AS display_name, r.description, \
    r.is_system, r.created_at, r.updated_at, r.version, \
    (SELECT count(*) FROM role_permissions rp WHERE rp.role_id = r.id) AS permissions_count \
    FROM roles r WHERE r.deleted_at IS NULL";

#[derive(Clone)]
pub struct PgRoleRepository {
    pool: DbPool,
}

impl PgRoleRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    async fn role_where(&self, clause: &str, bind: RoleKey<'_>) -> Result<Vec<RoleRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let sql = format!("{ROLE_SELECT} {clause} ORDER BY r.name");
        let rows: Vec<RoleRow> = match bind {
            RoleKey::None => diesel::sql_query(sql).load(&mut conn).await,
            RoleKey::Id(id) => diesel::sql_query(sql).bind::<SqlUuid, _>(id).load(&mut conn).await,
            RoleKey::Name(name) => diesel::sql_query(sql).bind::<Text, _>(name).load(&mut conn).await,
            RoleKey::User(id) => diesel::sql_query(sql).bind::<SqlUuid, _>(id).load(&mut conn).await,
        }
        .map_err(from_diesel)?;
        Ok(rows.into_iter().map(RoleRecord::from).collect())
    }
}

enum RoleKey<'a> {
    None,
    Id(Uuid),
    Name(&'a str),
    User(Uuid),
}

#[async_trait]
impl RoleRepository for PgRoleRepository {
    #[tracing::instrument(skip_all)]
    async fn create_role(&self, role: NewRole) -> Result<RoleRecord, RepoError> {
        let id = shared_kernel::new_id();
        {
            let mut conn = connect(&self.pool).await?;
            Prepared(diesel::insert_into(roles::table).values((
                roles::id.eq(id),
                roles::name.eq(role.name.as_str()),
                roles::display_name.eq(&role.display_name),
                roles::description.eq(&role.description),
            )))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        }
        self.find_role(id).await?.ok_or(RepoError::NotFound)
    }

    #[tracing::instrument(skip_all)]
    async fn list_roles(&self) -> Result<Vec<RoleRecord>, RepoError> {
        self.role_where("", RoleKey::None).await
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_role(&self, id: Uuid) -> Result<Option<RoleRecord>, RepoError> {
        Ok(self.role_where("AND r.id = $1", RoleKey::Id(id)).await?.into_iter().next())
    }

    #[tracing::instrument(skip_all)]
    async fn find_role_by_name(&self, name: &str) -> Result<Option<RoleRecord>, RepoError> {
        Ok(self.role_where("AND r.name = lower($1)", RoleKey::Name(name.trim())).await?.into_iter().next())
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn update_role(&self, id: Uuid, changes: RoleChanges) -> Result<RoleRecord, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let renamed = changes.name.as_ref().map(|n| n.as_str().to_owned());
        // A system role keeps its name: the filter refuses the rename in SQL.
        let updated = Prepared(
            diesel::update(roles::table)
                .filter(roles::id.eq(id).and(roles::deleted_at.is_null()))
                .filter(
                    roles::is_system
                        .eq(false)
                        .or(roles::name.nullable().eq(renamed.clone()))
                        .or(renamed.is_none().into_sql::<Bool>()),
                )
                .set((
                    renamed.map(|n| roles::name.eq(n)),
                    changes.display_name.map(|d| roles::display_name.eq(d)),
                    changes.description.map(|d| roles::description.eq(d)),
                    roles::updated_at.eq(diesel::dsl::now),
                )),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        drop(conn);
        match (updated, self.find_role(id).await?) {
            (1, Some(role)) => Ok(role),
            (_, Some(_)) => Err(RepoError::Stale),
            (_, None) => Err(RepoError::NotFound),
        }
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn delete_role(&self, id: Uuid) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), diesel::result::Error> {
            let deleted = Prepared(
                diesel::update(roles::table)
                    .filter(roles::id.eq(id).and(roles::deleted_at.is_null()).and(roles::is_system.eq(false)))
                    .set((roles::deleted_at.eq(diesel::dsl::now), roles::updated_at.eq(diesel::dsl::now))),
            )
            .execute(&mut conn)
            .await?;
            if deleted == 0 {
                return Err(diesel::result::Error::NotFound);
            }
            // The name becomes free; assignments of a deleted role mean nothing.
            diesel::delete(user_roles::table.filter(user_roles::role_id.eq(id))).execute(&mut conn).await?;
            Ok(())
        })
        .await
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(role_id = %role_id))]
    async fn grant_permissions(&self, role_id: Uuid, permission_ids: &[Uuid]) -> Result<usize, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let ids = permission_ids.to_vec();
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<usize, diesel::result::Error> {
            let role_exists: i64 = roles::table
                .filter(roles::id.eq(role_id).and(roles::deleted_at.is_null()))
                .count()
                .get_result(&mut conn)
                .await?;
            let known: i64 = permissions::table.filter(permissions::id.eq_any(&ids)).count().get_result(&mut conn).await?;
            let distinct = ids.iter().collect::<std::collections::HashSet<_>>().len();
            if role_exists == 0 || usize::try_from(known).unwrap_or(0) != distinct {
                return Err(diesel::result::Error::NotFound);
            }
            diesel::sql_query(
                "INSERT INTO role_permissions (role_id, permission_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING",
            )
            .bind::<SqlUuid, _>(role_id)
            .bind::<Array<SqlUuid>, _>(&ids)
            .execute(&mut conn)
            .await
        })
        .await
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(role_id = %role_id, permission_id = %permission_id))]
    async fn revoke_permission(&self, role_id: Uuid, permission_id: Uuid) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let removed = diesel::delete(
            role_permissions::table
                .filter(role_permissions::role_id.eq(role_id))
                .filter(role_permissions::permission_id.eq(permission_id)),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if removed == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }

    #[tracing::instrument(skip_all, fields(role_id = %role_id))]
    async fn role_permissions(&self, role_id: Uuid) -> Result<Vec<PermissionRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows = role_permissions::table
            .inner_join(permissions::table)
            .filter(role_permissions::role_id.eq(role_id))
            .order(permissions::name.asc())
            .select(PermissionRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().map(PermissionRecord::from).collect())
    }

    #[tracing::instrument(skip_all, fields(user_id = %user_id, role_id = %role_id))]
    async fn assign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<bool, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let user_exists: i64 = users::table
            .filter(users::id.eq(user_id).and(users::deleted_at.is_null()))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(from_diesel)?;
        if user_exists == 0 {
            return Err(RepoError::MissingReference { field: "user_id" });
        }
        let inserted = diesel::sql_query(
            "INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE id = $2 AND deleted_at IS NULL \
             ON CONFLICT DO NOTHING RETURNING role_id",
        )
        .bind::<SqlUuid, _>(user_id)
        .bind::<SqlUuid, _>(role_id)
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if inserted == 1 {
            return Ok(true);
        }
        let held: i64 = user_roles::table
            .filter(user_roles::user_id.eq(user_id).and(user_roles::role_id.eq(role_id)))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(from_diesel)?;
        if held == 1 {
            Ok(false)
        } else {
            Err(RepoError::NotFound)
        }
    }

    #[tracing::instrument(skip_all, fields(user_id = %user_id, role_id = %role_id))]
    async fn unassign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let removed = diesel::delete(
            user_roles::table.filter(user_roles::user_id.eq(user_id)).filter(user_roles::role_id.eq(role_id)),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if removed == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }

    #[tracing::instrument(skip_all, fields(user_id = %user_id))]
    async fn user_roles(&self, user_id: Uuid) -> Result<Vec<RoleRecord>, RepoError> {
        self.role_where("AND r.id IN (SELECT role_id FROM user_roles WHERE user_id = $1)", RoleKey::User(user_id)).await
    }

    #[tracing::instrument(skip_all)]
    async fn create_permission(
        &self,
        name: PermissionName,
        description: String,
    ) -> Result<PermissionRecord, RepoError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(
            diesel::insert_into(permissions::table)
                .values((
                    permissions::id.eq(shared_kernel::new_id()),
                    permissions::resource.eq(&name.resource),
                    permissions::action.eq(&name.action),
                    permissions::description.eq(description),
                ))
                .returning(PermissionRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(PermissionRecord::from)
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn list_permissions(&self) -> Result<Vec<PermissionRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let rows = permissions::table
            .order(permissions::name.asc())
            .select(PermissionRow::as_select())
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().map(PermissionRecord::from).collect())
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_permission(&self, id: Uuid) -> Result<Option<PermissionRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        permissions::table
            .find(id)
            .select(PermissionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map(|p| p.map(PermissionRecord::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn find_permission_by_name(&self, name: &str) -> Result<Option<PermissionRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        permissions::table
            .filter(permissions::name.eq(name.trim()))
            .select(PermissionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map(|p| p.map(PermissionRecord::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn update_permission(
        &self,
        id: Uuid,
        name: Option<PermissionName>,
        description: Option<String>,
    ) -> Result<PermissionRecord, RepoError> {
        // Nothing to change (every field absent) is a read, not an empty UPDATE diesel refuses.
        if name.is_none() && description.is_none() {
            return self.find_permission(id).await?.ok_or(RepoError::NotFound);
        }
        let mut conn = connect(&self.pool).await?;
        let (resource, action) = match name {
            Some(n) => (Some(n.resource), Some(n.action)),
            None => (None, None),
        };
        Prepared(
            diesel::update(permissions::table.find(id))
                .filter(permissions::name.ne("*:*"))
                .set((
                    resource.map(|r| permissions::resource.eq(r)),
                    action.map(|a| permissions::action.eq(a)),
                    description.map(|d| permissions::description.eq(d)),
                ))
                .returning(PermissionRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(PermissionRecord::from)
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn delete_permission(&self, id: Uuid) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        // `*:*` is what keeps administrators in charge: it cannot go.
        let removed = diesel::delete(permissions::table.find(id).filter(permissions::name.ne("*:*")))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        if removed == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }
}
