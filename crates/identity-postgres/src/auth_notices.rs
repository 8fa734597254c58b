//! The `tally_auth` channel: PostgreSQL announces, at commit, every change
//! that decides whether a token is still good (triggers of migration
//! 000009). An instance listening here can keep revocations and access
//! profiles in memory and still see every other instance's changes.

use std::time::Duration;

use diesel::sql_types::{Timestamptz, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use futures_util::StreamExt;
use time::OffsetDateTime;
use uuid::Uuid;

use postgres_toolkit::db::DbError;

pub const CHANNEL: &str = "tally_auth";

/// One notice on the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthNotice {
    /// The user's status, token version, roles or existence changed.
    User(Uuid),
    /// A role or permission changed: any profile may be stale.
    All,
    /// A token was revoked; the entry matters until the token expires.
    Token { jti: Uuid, expires_at: OffsetDateTime },
    /// A refresh-token family was revoked.
    Family { family: Uuid, expires_at: OffsetDateTime },
}

impl AuthNotice {
    /// Anything unreadable is taken as `All`: dropping every cached profile
    /// is always safe, missing a change is not.
    pub fn parse(payload: &str) -> Self {
        let mut parts = payload.split(':');
        let kind = parts.next().unwrap_or_default();
        let id = parts.next().and_then(|text| Uuid::parse_str(text).ok());
        let expires_at = parts
            .next()
            .and_then(|text| text.parse::<i64>().ok())
            .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok());
        match (kind, id, expires_at) {
            ("user", Some(id), None) => Self::User(id),
            ("jti", Some(jti), Some(expires_at)) => Self::Token { jti, expires_at },
            ("family", Some(family), Some(expires_at)) => Self::Family { family, expires_at },
            _ => Self::All,
        }
    }
}

/// The revocations still in force when listening began.
#[derive(Debug, Default)]
pub struct Revoked {
    pub tokens: Vec<(Uuid, OffsetDateTime)>,
    pub families: Vec<(Uuid, OffsetDateTime)>,
}

#[derive(QueryableByName)]
struct RevokedRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Timestamptz)]
    expires_at: OffsetDateTime,
}

/// A dedicated connection listening on the channel (not from the pool: it
/// is held for as long as the process runs).
pub struct AuthListener {
    conn: AsyncPgConnection,
}

impl AuthListener {
    /// Listens first, then reads what is revoked, so a revocation committed
    /// in between is in the snapshot or arrives as a notice (or both).
    pub async fn connect(url: &str) -> Result<(Self, Revoked), DbError> {
        let mut conn = AsyncPgConnection::establish(url).await.map_err(|e| DbError::Unavailable(e.to_string()))?;
        // The listener holds no transaction and no lock; the limits are the pool's all the same.
        let setup = postgres_toolkit::db::SessionLimits::default().setup_sql();
        conn.batch_execute(&format!("{setup}; SET application_name = 'tally-auth-listener'; LISTEN {CHANNEL}")).await?;
        let tokens: Vec<RevokedRow> = diesel::sql_query(
            "SELECT jti AS id, expires_at FROM revoked_tokens WHERE reason = 'revoked' AND expires_at > now()",
        )
        .load(&mut conn)
        .await?;
        let families: Vec<RevokedRow> = diesel::sql_query(
            "SELECT family_id AS id, expires_at FROM revoked_token_families WHERE expires_at > now()",
        )
        .load(&mut conn)
        .await?;
        let pairs = |rows: Vec<RevokedRow>| rows.into_iter().map(|r| (r.id, r.expires_at)).collect();
        Ok((Self { conn }, Revoked { tokens: pairs(tokens), families: pairs(families) }))
    }

    /// The next notice. When `quiet` passes without one, the connection is
    /// pinged (bounded by `quiet` too) and `Ok(None)` says it still answers;
    /// an error means the connection is gone and notices may have been missed.
    pub async fn next(&mut self, quiet: Duration) -> Result<Option<AuthNotice>, DbError> {
        let received = {
            let mut notices = std::pin::pin!(self.conn.notifications_stream());
            tokio::time::timeout(quiet, notices.next()).await
        };
        match received {
            Ok(Some(Ok(notice))) => Ok(Some(AuthNotice::parse(&notice.payload))),
            Ok(Some(Err(error))) => Err(error.into()),
            Ok(None) => Err(DbError::Unavailable("the listening connection closed".into())),
            Err(_quiet) => match tokio::time::timeout(quiet, self.conn.batch_execute("SELECT 1")).await {
                Ok(Ok(())) => Ok(None),
                Ok(Err(error)) => Err(error.into()),
                Err(_) => Err(DbError::Unavailable("the listening connection stopped answering".into())),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_parse_and_anything_else_means_all() {
        let id = Uuid::from_u128(7);
        assert_eq!(AuthNotice::parse(&format!("user:{id}")), AuthNotice::User(id));
        let at = OffsetDateTime::from_unix_timestamp(1_900_000_000).expect("a valid time");
        assert_eq!(AuthNotice::parse(&format!("jti:{id}:1900000000")), AuthNotice::Token { jti: id, expires_at: at });
        assert_eq!(
            AuthNotice::parse(&format!("family:{id}:1900000000")),
            AuthNotice::Family { family: id, expires_at: at }
        );
        for other in ["all", "", "user:", "user:not-a-uuid", "jti:{id}", "family:x:1", "later:thing"] {
            assert_eq!(AuthNotice::parse(other), AuthNotice::All, "{other}");
        }
    }
}
