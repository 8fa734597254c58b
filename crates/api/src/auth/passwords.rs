//! bcrypt, always on the blocking pool so async workers never stall.

use std::sync::OnceLock;

use crate::http::ApiError;

pub async fn hash(password: String, cost: u32) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || bcrypt::hash(password, cost))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)
}

/// Verifies `password` against `stored`; with no user (`None`) it checks a
/// dummy hash of the same cost, so unknown emails take as long as wrong
/// passwords.
pub async fn verify(password: String, stored: Option<String>, cost: u32) -> Result<bool, ApiError> {
    let known = stored.is_some();
    let stored = match stored {
        Some(hash) => hash,
        None => dummy_hash(cost).await?,
    };
    let matches = tokio::task::spawn_blocking(move || bcrypt::verify(password, &stored).unwrap_or(false))
        .await
        .map_err(ApiError::internal)?;
    Ok(known && matches)
}

async fn dummy_hash(cost: u32) -> Result<String, ApiError> {
    static DUMMY: OnceLock<(u32, String)> = OnceLock::new();
    if let Some((dummy_cost, hash)) = DUMMY.get() {
        if *dummy_cost == cost {
            return Ok(hash.clone());
        }
    }
    let hashed = hash("tally-dummy-password".to_owned(), cost).await?;
    let _ = DUMMY.set((cost, hashed.clone()));
    Ok(hashed)
}
