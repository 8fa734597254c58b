//! Users: creation, look-ups, login bookkeeping, status and passwords.

use postgres_toolkit::counting;
use postgres_toolkit::pipeline::transaction;
use postgres_toolkit::rendered::FirstRenderedOnce;
use std::time::Duration;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use identity_domain::ports::{
    AccessProfile, AdminProvision, ExistingAccount, FailedLogin, NewUser, RepoError, UserFilter, UserRecord,
    UserRepository,
};
use identity_domain::{StatusChange, UserStatus};
use shared_kernel::{EventEnvelope, Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::from_diesel;
use crate::schema::{api_keys, users};
use postgres_toolkit::db::{contains_pattern_lower as contains_pattern, lower};
use postgres_toolkit::events::record_event;
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Queryable, Selectable)]
#[diesel(table_name = users)]
struct UserRow {
    id: Uuid,
    email: String,
    name: String,
    password_hash: String,
    status: String,
    is_email_verified: bool,
    failed_login_count: i32,
    locked_until: Option<OffsetDateTime>,
    last_login_at: Option<OffsetDateTime>,
    token_version: i32,
    created_at: OffsetDateTime,
    updated_at: OffsetDateTime,
    version: i64,
}

impl From<UserRow> for UserRecord {
    fn from(r: UserRow) -> Self {
        UserRecord {
            version: r.version,
            id: r.id,
            email: r.email,
            name: r.name,
            password_hash: r.password_hash,
            // The CHECK constraint admits only the three statuses.
            status: UserStatus::parse(&r.status).unwrap_or(UserStatus::Suspended),
            is_email_verified: r.is_email_verified,
            failed_login_count: r.failed_login_count,
            locked_until: r.locked_until,
            last_login_at: r.last_login_at,
            token_version: r.token_version,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

#[derive(Clone)]
pub struct PgUserRepository {
    pool: DbPool,
}

impl PgUserRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

async fn load_user(mut conn: &AsyncPgConnection, id: Uuid) -> Result<UserRecord, diesel::result::Error> {
    users::table
        .filter(users::id.eq(id).and(users::deleted_at.is_null()))
        .select(UserRow::as_select())
        .first_rendered_once(&mut conn)
        .await
        .map(UserRecord::from)
}

async fn grant_roles(mut conn: &AsyncPgConnection, user_id: Uuid, roles: &[&str]) -> QueryResult<usize> {
    diesel::sql_query(
        "INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles \
         WHERE name = ANY($2) AND deleted_at IS NULL ON CONFLICT DO NOTHING",
    )
    .bind::<SqlUuid, _>(user_id)
    .bind::<Array<Text>, _>(roles)
    .execute(&mut conn)
    .await
}

#[derive(QueryableByName)]
struct AccessRow {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Integer)]
    token_version: i32,
    #[diesel(sql_type = Array<Text>)]
    roles: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    permissions: Vec<String>,
}

#[derive(QueryableByName)]
struct AdminCheckRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    is_admin: bool,
}

#[derive(QueryableByName)]
struct FailureRow {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    locked_until: Option<OffsetDateTime>,
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
}

#[async_trait]
impl UserRepository for PgUserRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, user: NewUser, events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError> {
        let written: Result<UserRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<UserRecord, diesel::result::Error> {
                Prepared(diesel::insert_into(users::table).values((
                    users::id.eq(user.id),
                    users::email.eq(&user.email),
                    users::name.eq(&user.name),
                    users::password_hash.eq(&user.password_hash),
                )))
                .execute(&mut conn)
                .await?;
                grant_roles(conn, user.id, &["user"]).await?;
                record_event(conn, &events).await?;
                load_user(conn, user.id).await
            })
            .await
            .map_err(from_diesel)
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<UserRecord>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        load_user(&conn, id).await.optional().map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        users::table
            .filter(users::email.eq(email.trim().to_lowercase()).and(users::deleted_at.is_null()))
            .select(UserRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map(|row| row.map(UserRecord::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(users = ids.len()))]
    async fn names(&self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, RepoError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = connect(&self.pool).await?;
        users::table
            .filter(users::id.eq_any(ids).and(users::deleted_at.is_null()))
            .select((users::id, users::name))
            .load(&mut conn)
            .await
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn list(&self, filter: &UserFilter, page: PageRequest) -> Result<Page<UserRecord>, RepoError> {
        let conn = connect(&self.pool).await?;
        let query = || {
            let mut query = users::table.filter(users::deleted_at.is_null()).into_boxed();
            if let Some(status) = filter.status {
                query = query.filter(users::status.eq(status.as_str()));
            }
            if let Some(verified) = filter.is_email_verified {
                query = query.filter(users::is_email_verified.eq(verified));
            }
            if let Some(search) = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                // Lower-cased pattern: emails are stored lower-cased (CHECK), names are searched through
                // the `lower(name)` trigram index (ILIKE on the column could use no index).
                let pattern = contains_pattern(search);
                query = query.filter(users::email.like(pattern.clone()).or(lower(users::name).like(pattern)));
            }
            query
        };
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            query(),
            query()
                .order((users::created_at.desc(), users::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(UserRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(rows.into_iter().map(UserRecord::from).collect(), total, page))
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn record_failed_login(
        &self,
        id: Uuid,
        max_failures: u32,
        lock_for: Duration,
    ) -> Result<FailedLogin, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // One statement: an expired lock restarts the count; reaching the
        // limit locks. Locked rows are not touched, so concurrent failures
        // can never count past the limit.
        let row: Option<FailureRow> = diesel::sql_query(
            "UPDATE users SET \
               failed_login_count = CASE WHEN locked_until IS NOT NULL AND locked_until <= now() THEN 1 \
                                         ELSE failed_login_count + 1 END, \
               locked_until = CASE WHEN (CASE WHEN locked_until IS NOT NULL AND locked_until <= now() THEN 1 \
                                              ELSE failed_login_count + 1 END) >= $2 \
                                   THEN now() + make_interval(secs => $3::double precision / 1000) \
                                   ELSE NULL END, \
               updated_at = now() \
             WHERE id = $1 AND deleted_at IS NULL AND (locked_until IS NULL OR locked_until <= now()) \
             RETURNING locked_until",
        )
        .bind::<SqlUuid, _>(id)
        .bind::<Integer, _>(i32::try_from(max_failures).unwrap_or(i32::MAX))
        .bind::<BigInt, _>(i64::try_from(lock_for.as_millis()).unwrap_or(i64::MAX))
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        Ok(match row {
            None => FailedLogin::AlreadyLocked,
            Some(FailureRow { locked_until: Some(_) }) => FailedLogin::LockedNow,
            Some(FailureRow { locked_until: None }) => FailedLogin::Counted,
        })
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn record_successful_login(&self, id: Uuid) -> Result<bool, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let updated = Prepared(
            diesel::update(users::table)
                .filter(users::id.eq(id).and(users::deleted_at.is_null()))
                .filter(users::locked_until.is_null().or(users::locked_until.le(diesel::dsl::now)))
                .set((
                    users::failed_login_count.eq(0),
                    users::locked_until.eq(None::<OffsetDateTime>),
                    users::last_login_at.eq(diesel::dsl::now),
                    users::updated_at.eq(diesel::dsl::now),
                )),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(updated == 1)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn change_status(
        &self,
        id: Uuid,
        change: StatusChange,
        events: Vec<EventEnvelope>,
    ) -> Result<UserRecord, RepoError> {
        let written: Result<UserRecord, RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            let bump = i32::from(change.revokes_tokens());
            let outcome = transaction(
                &mut conn,
                async |mut conn: &AsyncPgConnection| -> Result<Option<UserRecord>, diesel::result::Error> {
                    let updated = Prepared(
                        diesel::update(users::table)
                            .filter(users::id.eq(id).and(users::deleted_at.is_null()))
                            .filter(users::status.eq(change.from.as_str()))
                            .set((
                                users::status.eq(change.to.as_str()),
                                users::token_version.eq(users::token_version + bump),
                                users::updated_at.eq(diesel::dsl::now),
                            ))
                            .returning(UserRow::as_returning()),
                    )
                    .get_result(&mut conn)
                    .await
                    .optional()?;
                    if updated.is_some() {
                        record_event(conn, &events).await?;
                    }
                    Ok(updated.map(UserRecord::from))
                },
            )
            .await
            .map_err(from_diesel)?;
            // Give the connection back before looking again: holding it while
            // taking another could exhaust the pool under concurrency.
            drop(conn);
            match outcome {
                Some(user) => Ok(user),
                None if self.find_by_id(id).await?.is_some() => Err(RepoError::Stale),
                None => Err(RepoError::NotFound),
            }
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn change_password(
        &self,
        id: Uuid,
        password_hash: String,
        revoke_api_keys: bool,
        events: Vec<EventEnvelope>,
    ) -> Result<(), RepoError> {
        let written: Result<(), RepoError> = async {
            let mut conn = connect(&self.pool).await?;
            let changed =
                transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<usize, diesel::result::Error> {
                    let changed = Prepared(
                        diesel::update(users::table).filter(users::id.eq(id).and(users::deleted_at.is_null())).set((
                            users::password_hash.eq(&password_hash),
                            users::token_version.eq(users::token_version + 1),
                            // A proven current password ends the run of failures, as a login does.
                            users::failed_login_count.eq(0),
                            users::updated_at.eq(diesel::dsl::now),
                        )),
                    )
                    .execute(&mut conn)
                    .await?;
                    if changed == 1 {
                        if revoke_api_keys {
                            // With the password: nobody holds a key made with the old one after it is gone.
                            Prepared(
                                diesel::update(api_keys::table)
                                    .filter(api_keys::user_id.eq(id).and(api_keys::revoked_at.is_null()))
                                    .set(api_keys::revoked_at.eq(diesel::dsl::now)),
                            )
                            .execute(&mut conn)
                            .await?;
                        }
                        record_event(conn, &events).await?;
                    }
                    Ok(changed)
                })
                .await
                .map_err(from_diesel)?;
            if changed == 1 {
                Ok(())
            } else {
                Err(RepoError::NotFound)
            }
        }
        .await;
        super::woken(&self.pool, written)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn unlock(&self, id: Uuid) -> Result<UserRecord, RepoError> {
        let mut conn = connect(&self.pool).await?;
        Prepared(
            diesel::update(users::table)
                .filter(users::id.eq(id).and(users::deleted_at.is_null()))
                .set((
                    users::failed_login_count.eq(0),
                    users::locked_until.eq(None::<OffsetDateTime>),
                    users::updated_at.eq(diesel::dsl::now),
                ))
                .returning(UserRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .map(UserRecord::from)
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn access_profile(&self, id: Uuid) -> Result<Option<AccessProfile>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: Option<AccessRow> = diesel::sql_query(
            "SELECT u.status::text AS status, u.token_version, \
                    coalesce(array_agg(DISTINCT r.name::text) FILTER (WHERE r.name IS NOT NULL), '{}') AS roles, \
                    coalesce(array_agg(DISTINCT p.name::text) FILTER (WHERE p.name IS NOT NULL), '{}') AS permissions \
             FROM users u \
             LEFT JOIN user_roles ur ON ur.user_id = u.id \
             LEFT JOIN roles r ON r.id = ur.role_id AND r.deleted_at IS NULL \
             LEFT JOIN role_permissions rp ON rp.role_id = r.id \
             LEFT JOIN permissions p ON p.id = rp.permission_id \
             WHERE u.id = $1 AND u.deleted_at IS NULL \
             GROUP BY u.id",
        )
        .bind::<SqlUuid, _>(id)
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        Ok(row.map(|r| AccessProfile {
            status: UserStatus::parse(&r.status).unwrap_or(UserStatus::Suspended),
            token_version: r.token_version,
            roles: r.roles,
            permissions: r.permissions,
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn ensure_admin(
        &self,
        user: NewUser,
        roles: &[&str],
        existing: ExistingAccount,
        events: Vec<EventEnvelope>,
    ) -> Result<AdminProvision, RepoError> {
        // No request woke the relay for the first admin before: its events wait for the next poll.
        let mut conn = connect(&self.pool).await?;
        transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<AdminProvision, diesel::result::Error> {
            let inserted: Option<IdRow> = diesel::sql_query(
                "INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (email) WHERE deleted_at IS NULL DO NOTHING RETURNING id",
            )
            .bind::<SqlUuid, _>(user.id)
            .bind::<Text, _>(&user.email)
            .bind::<Text, _>(&user.name)
            .bind::<Text, _>(&user.password_hash)
            .get_result(&mut conn)
            .await
            .optional()?;
            if let Some(row) = inserted {
                record_event(conn, &events).await?;
                grant_roles(conn, row.id, roles).await?;
                return Ok(AdminProvision::Created(row.id));
            }
            // The row lock keeps a concurrent role change from slipping between check and promotion.
            let found: AdminCheckRow = diesel::sql_query(
                "SELECT u.id, EXISTS (SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id \
                     WHERE ur.user_id = u.id AND r.name IN ('admin', 'superadmin') AND r.deleted_at IS NULL) AS is_admin \
                 FROM users u WHERE u.email = $1 AND u.deleted_at IS NULL FOR UPDATE OF u",
            )
            .bind::<Text, _>(&user.email)
            .get_result(&mut conn)
            .await?;
            match existing {
                // docs/identity.md, "First admin and secrets": an existing account is left exactly as it is, so a ban, a
                // demotion or a new password made since is never undone by a restart.
                ExistingAccount::Refuse if found.is_admin => Ok(AdminProvision::AlreadyAdmin(found.id)),
                ExistingAccount::Refuse => Ok(AdminProvision::RefusedNotAdmin),
                ExistingAccount::Promote => {
                    Prepared(diesel::update(users::table.filter(users::id.eq(found.id)))
                        .set((
                            users::status.eq("active"),
                            users::password_hash.eq(&user.password_hash),
                            users::token_version.eq(users::token_version + 1),
                            users::failed_login_count.eq(0),
                            users::locked_until.eq(None::<OffsetDateTime>),
                            users::updated_at.eq(diesel::dsl::now),
                        )))
                        .execute(&mut conn)
                        .await?;
                    grant_roles(conn, found.id, roles).await?;
                    Ok(AdminProvision::Promoted(found.id))
                }
            }
        })
        .await
        .map_err(from_diesel)
    }
}
