//! The stored answers of keyed requests (docs/retries.md), in `idempotency_keys`.
//! Every function here runs inside the request's transaction (see
//! [`crate::request_tx`]): the claim's advisory lock is held until it ends, and
//! the answer is saved together with the change it reports.

use diesel::sql_types::{BigInt, Binary, Bool, Jsonb, Nullable, SmallInt, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use serde_json::Value;

use crate::{DbError, DbPool};

/// How long an answer is kept.
pub const KEEP_FOR_SECONDS: i64 = 24 * 60 * 60;

/// An answer as stored: status, the headers a replay needs, the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// What a key says about a request that carries it.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// First use (or the earlier one expired): run the request and save its answer.
    Fresh,
    /// Another request with this key is still running.
    InUse,
    /// The same request ran before: this is its answer.
    Replay(StoredResponse),
    /// The key was used for a different request.
    Reused,
}

#[derive(diesel::QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    locked: bool,
}

#[derive(diesel::QueryableByName)]
struct Lookup {
    #[diesel(sql_type = Nullable<Bool>)]
    same_request: Option<bool>,
    #[diesel(sql_type = Nullable<SmallInt>)]
    status: Option<i16>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    headers: Option<Value>,
    #[diesel(sql_type = Nullable<Binary>)]
    body: Option<Vec<u8>>,
}

/// Claims `key` in `scope` for the request whose fingerprint is `request_hash` (the sha256 of
/// method, path and body, computed by the caller: the body never travels to the database).
///
/// The transaction-scoped advisory lock makes a concurrent retry see `InUse`
/// instead of waiting; the lookup runs after the lock is held, in a statement
/// of its own, so it sees an answer committed by a request that just finished.
pub async fn claim(
    conn: &mut AsyncPgConnection,
    scope: &str,
    key: &str,
    request_hash: &[u8],
) -> Result<Claim, DbError> {
    let lock: Locked =
        diesel::sql_query("SELECT pg_try_advisory_xact_lock(hashtextextended($1 || E'\\n' || $2, 0)) AS locked")
            .bind::<Text, _>(scope)
            .bind::<Text, _>(key)
            .get_result(conn)
            .await?;
    if !lock.locked {
        return Ok(Claim::InUse);
    }
    let found: Lookup = diesel::sql_query(
        "SELECT k.request_hash = $3 AS same_request, k.status, k.headers, k.body \
         FROM (SELECT 1) AS one \
         LEFT JOIN idempotency_keys k ON k.scope = $1 AND k.key = $2 AND k.expires_at > now()",
    )
    .bind::<Text, _>(scope)
    .bind::<Text, _>(key)
    .bind::<Binary, _>(request_hash)
    .get_result(conn)
    .await?;
    // A matched row has every column (all NOT NULL); only a missing row leaves them empty.
    Ok(match found.same_request {
        None => Claim::Fresh,
        Some(false) => Claim::Reused,
        Some(true) => Claim::Replay(StoredResponse {
            status: found.status.and_then(|s| u16::try_from(s).ok()).unwrap_or(500),
            headers: found.headers.and_then(|h| serde_json::from_value(h).ok()).unwrap_or_default(),
            body: found.body.unwrap_or_default(),
        }),
    })
}

/// Waits for the key's lock (for saving an answer outside the claim's transaction, after
/// that one rolled back): a retry that claimed the key meanwhile finishes first.
pub async fn wait_for_key(conn: &mut AsyncPgConnection, scope: &str, key: &str) -> Result<(), DbError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1 || E'\\n' || $2, 0))")
        .bind::<Text, _>(scope)
        .bind::<Text, _>(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// Saves the answer of a fresh claim; `false` when a live answer is already kept under the
/// key (only possible outside the claim's transaction: then that answer stands). An expired
/// row under the key is replaced.
pub async fn save(
    conn: &mut AsyncPgConnection,
    scope: &str,
    key: &str,
    request_hash: &[u8],
    response: &StoredResponse,
) -> Result<bool, DbError> {
    let headers = serde_json::to_value(&response.headers).unwrap_or_else(|_| Value::Array(Vec::new()));
    let written = diesel::sql_query(
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, headers, body, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) \
         ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = EXCLUDED.status, \
             headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = now(), expires_at = EXCLUDED.expires_at \
         WHERE idempotency_keys.expires_at <= now()",
    )
    .bind::<Text, _>(scope)
    .bind::<Text, _>(key)
    .bind::<Binary, _>(request_hash)
    .bind::<SmallInt, _>(i16::try_from(response.status).unwrap_or(500))
    .bind::<Jsonb, _>(headers)
    .bind::<Binary, _>(&response.body)
    .bind::<BigInt, _>(KEEP_FOR_SECONDS)
    .execute(conn)
    .await?;
    Ok(written == 1)
}

/// Deletes expired answers, a thousand rows per statement so no sweep holds
/// many locks; returns how many went.
pub async fn sweep(pool: &DbPool) -> Result<u64, DbError> {
    let mut conn = pool.get().await?;
    let mut swept = 0u64;
    loop {
        let deleted = diesel::sql_query(
            "DELETE FROM idempotency_keys WHERE ctid IN \
             (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT 1000)",
        )
        .execute(&mut conn)
        .await?;
        swept += deleted as u64;
        if deleted < 1000 {
            return Ok(swept);
        }
    }
}
