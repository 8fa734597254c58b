//! PostgreSQL adapter of `ApiKeyRepository`.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use identity_domain::api_key::{ApiKeyRecord, ApiKeyRepository, MAX_LIVE_KEYS_PER_USER};
use identity_domain::ports::RepoError;
use postgres_toolkit::counting;
use postgres_toolkit::pipeline::transaction;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::from_diesel;
use crate::schema::{api_keys, users};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

/// Every column but the hash; loaded by the query builder and by the raw look-up alike.
#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = api_keys)]
struct ApiKeyRow {
    id: Uuid,
    user_id: Uuid,
    name: String,
    prefix: String,
    permissions: Vec<String>,
    created_at: OffsetDateTime,
    last_used_at: Option<OffsetDateTime>,
    expires_at: Option<OffsetDateTime>,
    revoked_at: Option<OffsetDateTime>,
}

impl From<ApiKeyRow> for ApiKeyRecord {
    fn from(r: ApiKeyRow) -> Self {
        ApiKeyRecord {
            id: r.id,
            user_id: r.user_id,
            name: r.name,
            prefix: r.prefix,
            permissions: r.permissions,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            expires_at: r.expires_at,
            revoked_at: r.revoked_at,
        }
    }
}

#[derive(Clone)]
pub struct PgApiKeyRepository {
    pool: DbPool,
}

impl PgApiKeyRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl ApiKeyRepository for PgApiKeyRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, key: &ApiKeyRecord, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        transaction(
            &mut conn,
            async |mut conn: &AsyncPgConnection| -> Result<Option<ApiKeyRecord>, diesel::result::Error> {
                // The owner's row lock makes the count and the insert one step for that owner.
                users::table.find(key.user_id).select(users::id).for_no_key_update().first::<Uuid>(&mut conn).await?;
                let live: i64 = api_keys::table
                    .filter(api_keys::user_id.eq(key.user_id).and(api_keys::revoked_at.is_null()))
                    .filter(api_keys::expires_at.is_null().or(api_keys::expires_at.gt(diesel::dsl::now)))
                    .count()
                    .get_result(&mut conn)
                    .await?;
                if live >= MAX_LIVE_KEYS_PER_USER {
                    return Ok(None);
                }
                Prepared(
                    diesel::insert_into(api_keys::table)
                        .values((
                            api_keys::id.eq(key.id),
                            api_keys::user_id.eq(key.user_id),
                            api_keys::name.eq(&key.name),
                            api_keys::prefix.eq(&key.prefix),
                            api_keys::key_hash.eq(key_hash),
                            api_keys::permissions.eq(&key.permissions),
                            api_keys::created_at.eq(key.created_at),
                            api_keys::expires_at.eq(key.expires_at),
                        ))
                        .returning(ApiKeyRow::as_returning()),
                )
                .get_result(&mut conn)
                .await
                .map(|row| Some(ApiKeyRecord::from(row)))
            },
        )
        .await
        .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all, fields(owner = ?owner))]
    async fn list(&self, owner: Option<Uuid>, page: PageRequest) -> Result<Page<ApiKeyRecord>, RepoError> {
        let conn = connect(&self.pool).await?;
        let filtered = || {
            let mut query = api_keys::table.into_boxed();
            if let Some(owner) = owner {
                query = query.filter(api_keys::user_id.eq(owner));
            }
            query
        };
        let (rows, total) = counting::list_page!(
            &conn,
            page,
            filtered(),
            filtered()
                .order((api_keys::created_at.desc(), api_keys::id.desc()))
                .offset(page.offset())
                .limit(page.limit())
                .select(ApiKeyRow::as_select())
        )
        .await
        .map_err(from_diesel)?;
        Ok(Page::new(rows.into_iter().map(ApiKeyRecord::from).collect(), total, page))
    }

    #[tracing::instrument(skip_all, fields(id = %id, owner = ?owner))]
    async fn revoke(&self, id: Uuid, owner: Option<Uuid>, at: OffsetDateTime) -> Result<ApiKeyRecord, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let mine = || {
            let mut query = api_keys::table.filter(api_keys::id.eq(id)).into_boxed();
            if let Some(owner) = owner {
                query = query.filter(api_keys::user_id.eq(owner));
            }
            query
        };
        // The first revocation's time stays; revoking again changes nothing.
        let live = api_keys::table.filter(api_keys::id.eq(id).and(api_keys::revoked_at.is_null()));
        let revoked = match owner {
            Some(owner) => {
                Prepared(
                    diesel::update(live.filter(api_keys::user_id.eq(owner)))
                        .set(api_keys::revoked_at.eq(at))
                        .returning(ApiKeyRow::as_returning()),
                )
                .get_result(&mut conn)
                .await
            }
            None => {
                Prepared(diesel::update(live).set(api_keys::revoked_at.eq(at)).returning(ApiKeyRow::as_returning()))
                    .get_result(&mut conn)
                    .await
            }
        }
        .optional()
        .map_err(from_diesel)?;
        match revoked {
            Some(row) => Ok(row.into()),
            None => mine()
                .select(ApiKeyRow::as_select())
                .first(&mut conn)
                .await
                .optional()
                .map_err(from_diesel)?
                .map(ApiKeyRecord::from)
                .ok_or(RepoError::NotFound),
        }
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find(&self, id: Uuid) -> Result<Option<ApiKeyRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        api_keys::table
            .find(id)
            .select(ApiKeyRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map(|row| row.map(ApiKeyRecord::from))
            .map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn find_by_hash(&self, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // One statement: the look-up, and the use recorded when the last one is a minute old.
        let row = diesel::sql_query(
            "WITH found AS (SELECT * FROM api_keys WHERE key_hash = $1), \
             touched AS (UPDATE api_keys k SET last_used_at = now() FROM found \
                 WHERE k.id = found.id AND k.revoked_at IS NULL \
                 AND (k.expires_at IS NULL OR k.expires_at > now()) \
                 AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')) \
             SELECT id, user_id, name, prefix, permissions, created_at, last_used_at, expires_at, revoked_at FROM found",
        )
        .bind::<diesel::sql_types::Bytea, _>(key_hash)
        .get_result::<ApiKeyRow>(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        Ok(row.map(ApiKeyRecord::from))
    }
}
