//! bcrypt, always on the blocking pool so async workers never stall: the identity use cases'
//! `PasswordHasher` port.

use std::sync::OnceLock;

use async_trait::async_trait;
use identity_domain::application::ports::PasswordHasher;
use identity_domain::{IdentityError, Password};

use crate::http::ApiError;

async fn hash_text(password: String, cost: u32) -> Result<String, String> {
    tokio::task::spawn_blocking(move || bcrypt::hash(password, cost))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// The hash of `password` at `cost` (the first admin's, at start-up).
pub async fn hash(password: String, cost: u32) -> Result<String, ApiError> {
    hash_text(password, cost).await.map_err(ApiError::internal)
}

/// A dummy hash of the same cost, so unknown emails take as long as wrong passwords.
async fn dummy_hash(cost: u32) -> Result<String, String> {
    static DUMMY: OnceLock<(u32, String)> = OnceLock::new();
    if let Some((dummy_cost, hash)) = DUMMY.get() {
        if *dummy_cost == cost {
            return Ok(hash.clone());
        }
    }
    let hashed = hash_text("tally-dummy-password".to_owned(), cost).await?;
    let _ = DUMMY.set((cost, hashed.clone()));
    Ok(hashed)
}

/// bcrypt at the configured cost (`BCRYPT_COST`).
pub struct BcryptHasher {
    cost: u32,
}

impl BcryptHasher {
    pub fn new(cost: u32) -> Self {
        Self { cost }
    }
}

#[async_trait]
impl PasswordHasher for BcryptHasher {
    #[tracing::instrument(name = "identity.hash_password", skip_all)]
    async fn hash(&self, password: &Password) -> Result<String, IdentityError> {
        hash_text(password.expose().to_owned(), self.cost).await.map_err(IdentityError::Credential)
    }

    /// With no user (`None`) it checks a dummy hash of the same cost.
    #[tracing::instrument(name = "identity.verify_password", skip_all)]
    async fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, IdentityError> {
        let known = stored.is_some();
        let stored = match stored {
            Some(hash) => hash.to_owned(),
            None => dummy_hash(self.cost).await.map_err(IdentityError::Credential)?,
        };
        let password = password.to_owned();
        let matches = tokio::task::spawn_blocking(move || bcrypt::verify(password, &stored).unwrap_or(false))
            .await
            .map_err(|e| IdentityError::Credential(e.to_string()))?;
        Ok(known && matches)
    }
}
