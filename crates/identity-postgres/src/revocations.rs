//! Token revocations: in PostgreSQL (the default, so a restart or a second
//! instance never brings a revoked token back) or in the key-value store
//! (Redis, when configured).

use std::sync::Arc;

use async_trait::async_trait;
use diesel::sql_types::{Bool, Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use identity_domain::ports::RepoError;
use identity_domain::{Rotation, TokenRef, TokenRevocations};
use shared_kernel::ports::{KeyValueStore, KvError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::from_diesel;
use postgres_toolkit::storage::connect;
use postgres_toolkit::DbPool;

#[derive(Clone)]
pub struct PgTokenRevocations {
    pool: DbPool,
}

impl PgTokenRevocations {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }
}

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = Bool)]
    flag: bool,
}

#[derive(QueryableByName)]
struct RotationRow {
    #[diesel(sql_type = Bool)]
    first_use: bool,
    #[diesel(sql_type = Bool)]
    family_was_revoked: bool,
}

#[async_trait]
impl TokenRevocations for PgTokenRevocations {
    #[tracing::instrument(skip_all, fields(jti = %jti))]
    async fn revoke(&self, jti: Uuid, expires_at: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        diesel::sql_query(
            "INSERT INTO revoked_tokens (jti, reason, expires_at) VALUES ($1, 'revoked', $2) \
             ON CONFLICT (jti) DO UPDATE SET reason = 'revoked'",
        )
        .bind::<SqlUuid, _>(jti)
        .bind::<Timestamptz, _>(expires_at)
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(())
    }

    #[tracing::instrument(skip_all)]
    async fn is_revoked(&self, token: &TokenRef) -> Result<bool, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row: Flag = diesel::sql_query(
            "SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = $1 AND reason = 'revoked') \
             OR EXISTS (SELECT 1 FROM revoked_token_families WHERE family_id = $2) \
             OR NOT EXISTS (SELECT 1 FROM users WHERE id = $3 AND token_version = $4 AND deleted_at IS NULL) AS flag",
        )
        .bind::<SqlUuid, _>(token.jti)
        .bind::<diesel::sql_types::Nullable<SqlUuid>, _>(token.family)
        .bind::<SqlUuid, _>(token.user_id)
        .bind::<diesel::sql_types::Integer, _>(token.token_version)
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(row.flag)
    }

    #[tracing::instrument(skip_all, fields(jti = %jti, family = %family))]
    async fn rotate(
        &self,
        jti: Uuid,
        expires_at: OffsetDateTime,
        family: Uuid,
        family_expires_at: OffsetDateTime,
    ) -> Result<Rotation, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // One statement: spend the token; if it was spent before, revoke the
        // family. The final SELECT sees the tables as they were before it.
        let row: RotationRow = diesel::sql_query(
            "WITH spent AS ( \
                 INSERT INTO revoked_tokens (jti, reason, expires_at) VALUES ($1, 'rotated', $2) \
                 ON CONFLICT (jti) DO NOTHING RETURNING jti), \
             ended AS ( \
                 INSERT INTO revoked_token_families (family_id, expires_at) \
                 SELECT $3, $4 WHERE NOT EXISTS (SELECT 1 FROM spent) \
                 ON CONFLICT (family_id) DO UPDATE \
                     SET expires_at = GREATEST(revoked_token_families.expires_at, EXCLUDED.expires_at) \
                 RETURNING family_id) \
             SELECT EXISTS (SELECT 1 FROM spent) AS first_use, \
                    EXISTS (SELECT 1 FROM revoked_token_families WHERE family_id = $3) AS family_was_revoked",
        )
        .bind::<SqlUuid, _>(jti)
        .bind::<Timestamptz, _>(expires_at)
        .bind::<SqlUuid, _>(family)
        .bind::<Timestamptz, _>(family_expires_at)
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(match (row.first_use, row.family_was_revoked) {
            (_, true) => Rotation::FamilyRevoked,
            (true, false) => Rotation::Rotated,
            (false, false) => Rotation::Reused,
        })
    }

    #[tracing::instrument(skip_all)]
    async fn sweep(&self) -> Result<u64, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let tokens = diesel::sql_query("DELETE FROM revoked_tokens WHERE expires_at < now()")
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        let families = diesel::sql_query("DELETE FROM revoked_token_families WHERE expires_at < now()")
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok((tokens + families) as u64)
    }
}

/// Revocations in the key-value store; entries expire with their tokens.
#[derive(Clone)]
pub struct KvTokenRevocations {
    kv: Arc<dyn KeyValueStore>,
}

impl KvTokenRevocations {
    pub fn new(kv: Arc<dyn KeyValueStore>) -> Self {
        Self { kv }
    }
}

fn unavailable(error: KvError) -> RepoError {
    RepoError::Unavailable(error.to_string())
}

fn ttl_until(expires_at: OffsetDateTime) -> std::time::Duration {
    let seconds = (expires_at - OffsetDateTime::now_utc()).whole_seconds().max(1);
    std::time::Duration::from_secs(u64::try_from(seconds).unwrap_or(1))
}

fn token_key(jti: Uuid) -> String {
    format!("revoked:{jti}")
}

fn spent_key(jti: Uuid) -> String {
    format!("rotated:{jti}")
}

fn family_key(family: Uuid) -> String {
    format!("revoked-family:{family}")
}

#[async_trait]
impl TokenRevocations for KvTokenRevocations {
    #[tracing::instrument(skip_all, fields(jti = %jti))]
    async fn revoke(&self, jti: Uuid, expires_at: OffsetDateTime) -> Result<(), RepoError> {
        self.kv.set(&token_key(jti), "revoked", Some(ttl_until(expires_at))).await.map_err(unavailable)
    }

    #[tracing::instrument(skip_all)]
    async fn is_revoked(&self, token: &TokenRef) -> Result<bool, RepoError> {
        // The token version is checked against the access cache, which Redis
        // shares between instances.
        if self.kv.exists(&token_key(token.jti)).await.map_err(unavailable)? {
            return Ok(true);
        }
        match token.family {
            Some(family) => self.kv.exists(&family_key(family)).await.map_err(unavailable),
            None => Ok(false),
        }
    }

    #[tracing::instrument(skip_all, fields(jti = %jti, family = %family))]
    async fn rotate(
        &self,
        jti: Uuid,
        expires_at: OffsetDateTime,
        family: Uuid,
        family_expires_at: OffsetDateTime,
    ) -> Result<Rotation, RepoError> {
        if self.kv.exists(&family_key(family)).await.map_err(unavailable)? {
            return Ok(Rotation::FamilyRevoked);
        }
        let first = self
            .kv
            .set_if_absent(&spent_key(jti), "rotated", Some(ttl_until(expires_at)))
            .await
            .map_err(unavailable)?;
        let revoked = self.kv.exists(&token_key(jti)).await.map_err(unavailable)?;
        if first && !revoked {
            return Ok(Rotation::Rotated);
        }
        self.kv.set(&family_key(family), "reused", Some(ttl_until(family_expires_at))).await.map_err(unavailable)?;
        Ok(Rotation::Reused)
    }

    #[tracing::instrument(skip_all)]
    async fn sweep(&self) -> Result<u64, RepoError> {
        // Every entry carries its own TTL.
        Ok(0)
    }
}
