//! HS256 access and refresh tokens with the claims of docs/identity.md.

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind as JwtErrorKind;
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use super::verified::VerifiedTokens;
use crate::http::ApiError;

pub const ACCESS_TTL: Duration = Duration::from_secs(15 * 60);
pub const REFRESH_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    Access,
    Refresh,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub user_id: Uuid,
    pub email: String,
    pub roles: Vec<String>,
    pub exp: i64,
    pub iat: i64,
    pub iss: String,
    pub jti: Uuid,
    pub token_type: TokenKind,
    /// The user's token version at issue time; a bump (password change,
    /// suspension, ban) retires every older token at once.
    pub tv: i32,
    /// The refresh-token family (one per login) the token was issued in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<Uuid>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    /// Expiry of the access token.
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: OffsetDateTime,
    #[schema(example = "Bearer")]
    pub token_type: &'static str,
}

/// Who a token is being issued to.
pub struct Subject<'a> {
    pub user_id: Uuid,
    pub email: &'a str,
    pub roles: Vec<String>,
    pub token_version: i32,
    /// The session's refresh-token family: new at login, kept by refresh.
    pub family: Uuid,
}

#[derive(Clone)]
pub struct TokenService {
    encoding: EncodingKey,
    decoding: DecodingKey,
    issuer: String,
    /// The rules every token is checked by, built once (each holds sets; every request used to
    /// build them again): with expiry, and without (revoking an expired token).
    current: Arc<Validation>,
    expired_too: Arc<Validation>,
    verified: Arc<VerifiedTokens>,
}

/// HS256 only, this issuer, `exp`/`iss`/`sub` required, no leeway.
fn validation(issuer: &str, check_expiry: bool) -> Validation {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_issuer(&[issuer]);
    validation.set_required_spec_claims(&["exp", "iss", "sub"]);
    validation.leeway = 0;
    validation.validate_exp = check_expiry;
    validation
}

impl TokenService {
    pub fn new(secret: &str, issuer: &str) -> Self {
        Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            issuer: issuer.to_owned(),
            current: Arc::new(validation(issuer, true)),
            expired_too: Arc::new(validation(issuer, false)),
            verified: Arc::default(),
        }
    }

    fn issue(
        &self,
        subject: &Subject<'_>,
        kind: TokenKind,
        ttl: Duration,
        now: OffsetDateTime,
    ) -> Result<(String, OffsetDateTime), ApiError> {
        let expires_at = now + ttl;
        let claims = Claims {
            sub: subject.user_id.to_string(),
            user_id: subject.user_id,
            email: subject.email.to_owned(),
            roles: subject.roles.clone(),
            exp: expires_at.unix_timestamp(),
            iat: now.unix_timestamp(),
            iss: self.issuer.clone(),
            jti: shared_kernel::new_id(),
            token_type: kind,
            tv: subject.token_version,
            fam: Some(subject.family),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(ApiError::internal)?;
        Ok((token, expires_at))
    }

    pub fn issue_pair(&self, subject: &Subject<'_>) -> Result<TokenPair, ApiError> {
        let now = OffsetDateTime::now_utc();
        let (access_token, expires_at) = self.issue(subject, TokenKind::Access, ACCESS_TTL, now)?;
        let (refresh_token, _) = self.issue(subject, TokenKind::Refresh, REFRESH_TTL, now)?;
        Ok(TokenPair { access_token, refresh_token, expires_at, token_type: "Bearer" })
    }

    /// An access token that expired an hour ago, for tests of expiry.
    #[doc(hidden)]
    pub fn issue_expired_for_tests(&self, subject: &Subject<'_>) -> String {
        let then = OffsetDateTime::now_utc() - Duration::from_secs(3600 + ACCESS_TTL.as_secs());
        self.issue(subject, TokenKind::Access, ACCESS_TTL, then).map(|(token, _)| token).unwrap_or_default()
    }

    /// Verifies signature (HS256 only), issuer, expiry and kind.
    pub fn verify(&self, token: &str, kind: TokenKind) -> Result<Claims, ApiError> {
        let claims = self.verify_any(token, true)?;
        if claims.token_type != kind {
            return Err(ApiError::unauthorized(match kind {
                TokenKind::Access => "an access token is required",
                TokenKind::Refresh => "a refresh token is required",
            }));
        }
        Ok(claims)
    }

    /// `verify(token, Access)`, remembering the tokens that pass: the same token text again is taken
    /// from memory, its expiry checked anew (`verified.rs`).
    pub fn verify_access(&self, token: &str) -> Result<Arc<Claims>, ApiError> {
        let token = token.trim();
        if let Some(claims) = self.verified.get(token, OffsetDateTime::now_utc().unix_timestamp()) {
            return Ok(claims);
        }
        let claims = Arc::new(self.verify(token, TokenKind::Access)?);
        self.verified.remember(token, claims.clone());
        Ok(claims)
    }

    /// Verifies a token of either kind; `check_expiry` false accepts an
    /// expired one (revoking an expired token is harmless).
    pub fn verify_any(&self, token: &str, check_expiry: bool) -> Result<Claims, ApiError> {
        let validation = if check_expiry { &self.current } else { &self.expired_too };
        decode::<Claims>(token.trim(), &self.decoding, validation).map(|data| data.claims).map_err(|error| match error
            .kind()
        {
            JwtErrorKind::ExpiredSignature => {
                ApiError::new(actix_web::http::StatusCode::UNAUTHORIZED, "TOKEN_EXPIRED", "the token has expired")
            }
            _ => ApiError::unauthorized("the token is invalid"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject<'static> {
        Subject {
            user_id: shared_kernel::new_id(),
            email: "ann@example.com",
            roles: vec!["user".into()],
            token_version: 0,
            family: shared_kernel::new_id(),
        }
    }

    #[test]
    fn pairs_verify_by_kind() {
        let service = TokenService::new("0123456789abcdef0123456789abcdef", "tally");
        let pair = service.issue_pair(&subject()).expect("issued");
        let access = service.verify(&pair.access_token, TokenKind::Access).expect("valid access");
        assert_eq!(access.sub, access.user_id.to_string());
        assert_eq!(access.token_type, TokenKind::Access);
        assert!(service.verify(&pair.refresh_token, TokenKind::Refresh).is_ok());
        assert_eq!(
            service.verify(&pair.refresh_token, TokenKind::Access).map(|_| ()).map_err(|e| e.code),
            Err("UNAUTHORIZED")
        );
        assert!(service.verify(&pair.access_token, TokenKind::Refresh).is_err());
        assert_ne!(access.jti, service.verify(&pair.refresh_token, TokenKind::Refresh).expect("valid").jti);
    }

    #[test]
    fn forged_tokens_are_rejected() {
        let service = TokenService::new("0123456789abcdef0123456789abcdef", "tally");
        let other = TokenService::new("another-secret-another-secret-000", "tally");
        let foreign = other.issue_pair(&subject()).expect("issued");
        assert_eq!(
            service.verify(&foreign.access_token, TokenKind::Access).map_err(|e| e.code).err(),
            Some("UNAUTHORIZED")
        );
        let other_issuer = TokenService::new("0123456789abcdef0123456789abcdef", "someone-else");
        let pair = other_issuer.issue_pair(&subject()).expect("issued");
        assert!(service.verify(&pair.access_token, TokenKind::Access).is_err());
        assert!(service.verify("not.a.token", TokenKind::Access).is_err());
        // Tampered payload: flip a character in the middle segment.
        let mut parts: Vec<String> =
            service.issue_pair(&subject()).expect("issued").access_token.split('.').map(str::to_owned).collect();
        parts[1] = parts[1].chars().rev().collect();
        assert!(service.verify(&parts.join("."), TokenKind::Access).is_err());
    }

    #[test]
    fn remembered_access_tokens_are_checked_like_new_ones() {
        let service = TokenService::new("0123456789abcdef0123456789abcdef", "tally");
        let pair = service.issue_pair(&subject()).expect("issued");
        let first = service.verify_access(&pair.access_token).expect("valid");
        let again = service.verify_access(&pair.access_token).expect("valid from memory");
        assert!(Arc::ptr_eq(&first, &again), "the second use is taken from memory");
        // A refresh token is never accepted as an access token, first time or later.
        for _ in 0..2 {
            assert!(service.verify_access(&pair.refresh_token).is_err());
        }
        // A forged token is refused every time, whatever was remembered before.
        let (signed, signature) = pair.access_token.rsplit_once('.').expect("three parts");
        let (head, tail) = signature.split_at(10);
        let swapped = if tail.starts_with('A') { 'B' } else { 'A' };
        let forged = format!("{signed}.{head}{swapped}{}", &tail[1..]);
        for _ in 0..2 {
            assert!(service.verify_access(&forged).is_err());
        }
        let expired = service.issue_expired_for_tests(&subject());
        for _ in 0..2 {
            assert_eq!(service.verify_access(&expired).map_err(|e| e.code).err(), Some("TOKEN_EXPIRED"));
        }
    }
}
