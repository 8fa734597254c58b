//! API keys (docs/identity.md): making one (a random secret shown once, kept as its sha256)
//! and authenticating with one. The guard is the caller's (`Caller::require`), as for tokens.

use std::sync::Arc;

use actix_web::http::StatusCode;
use identity_domain::api_key::{ApiKeyRecord, KeyRefusal, KEY_PREFIX};
use identity_domain::UserStatus;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::caller::{Caller, Credential};
use crate::app::AppState;
use crate::http::ApiError;

/// Characters of a key shown in lists (`tly_` and 8 of the secret).
const SHOWN_CHARS: usize = 12;

/// A new key: `tly_` and 64 hex digits of 32 random bytes from the operating system.
pub fn new_secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(|e| ApiError::internal(format!("no randomness for a key: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{KEY_PREFIX}{hex}"))
}

/// What is stored of a key (its 256 random bits need no slow hash).
pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Whether `secret` has a key's shape (`tly_` and 64 lower-case hex digits): anything else is
/// refused without a look-up.
pub fn well_formed(secret: &str) -> bool {
    secret
        .strip_prefix(KEY_PREFIX)
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The rate-limit bucket of a presented key: named by its hash, known before any look-up.
pub fn limiter_identity(secret: &str) -> String {
    let digest = hash(secret);
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("key:{hex}")
}

/// What lists show of a key.
pub fn shown_prefix(secret: &str) -> String {
    secret.chars().take(SHOWN_CHARS).collect()
}

/// New keys from the operating system's randomness: the identity use cases' `KeySecrets` port.
pub struct RandomKeySecrets;

impl identity_domain::application::ports::KeySecrets for RandomKeySecrets {
    fn generate(&self) -> Result<identity_domain::application::ports::KeySecret, identity_domain::IdentityError> {
        let key = new_secret().map_err(|e| identity_domain::IdentityError::Credential(e.message))?;
        Ok(identity_domain::application::ports::KeySecret {
            shown_prefix: shown_prefix(&key),
            hash: hash(&key).to_vec(),
            key,
        })
    }
}

fn refusal(kind: KeyRefusal) -> ApiError {
    match kind {
        KeyRefusal::Revoked => ApiError::new(StatusCode::UNAUTHORIZED, "TOKEN_REVOKED", "the API key has been revoked"),
        KeyRefusal::Expired => ApiError::new(StatusCode::UNAUTHORIZED, "TOKEN_EXPIRED", "the API key has expired"),
    }
}

/// The caller a key stands for: its owner, narrowed to the key's permissions. Revoked or
/// expired keys, and keys of owners who are not active, are refused (401) on every request.
pub async fn authenticate_key(state: &AppState, secret: &str) -> Result<Caller, ApiError> {
    if !well_formed(secret) {
        return Err(ApiError::unauthorized("the API key is not valid"));
    }
    let found = state.identity.api_keys.find_by_hash(&hash(secret)).await.map_err(ApiError::from)?;
    let key: ApiKeyRecord = found.ok_or_else(|| ApiError::unauthorized("the API key is not valid"))?;
    key.usable(OffsetDateTime::now_utc()).map_err(refusal)?;
    let owner = state.identity.access.get(key.user_id).await?;
    let owner = owner.ok_or_else(|| ApiError::unauthorized("the API key's owner no longer exists"))?;
    if owner.status != UserStatus::Active {
        return Err(ApiError::unauthorized(format!("the API key's owner is {}", owner.status.as_str())));
    }
    Ok(Caller {
        user_id: key.user_id,
        roles: Arc::from([]),
        permissions: owner.permissions.clone(),
        credential: Credential::ApiKey { id: key.id, permissions: Arc::new(key.permission_set()) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_prefixed_and_hashed() {
        let (a, b) = (new_secret().expect("key"), new_secret().expect("key"));
        assert_ne!(a, b);
        assert!(a.starts_with("tly_") && a.len() == 4 + 64 && a[4..].bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(shown_prefix(&a), a[..12]);
        assert_eq!(hash(&a), hash(&a.clone()));
        assert_ne!(hash(&a), hash(&b));
        assert!(well_formed(&a));
        for bad in ["tly_", "tly_abc", &a.to_uppercase().replacen("TLY_", "tly_", 1), &format!("{a}0"), &a[1..]] {
            assert!(!well_formed(bad), "{bad}");
        }
        assert_eq!(limiter_identity(&a), limiter_identity(&a));
        assert_ne!(limiter_identity(&a), limiter_identity(&b));
    }
}
