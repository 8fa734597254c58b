//! What customer management asks of the reference data and of the phone-number rule (ports the api
//! implements: over the reference-data tables, and over its one phone library).

use async_trait::async_trait;
use shared_kernel::CurrencyCode;

use super::RepoError;

/// The currencies of the reference data, as the operator keeps them: a deal's value is in an active one.
#[async_trait]
pub trait Currencies: Send + Sync {
    /// Whether `code` is a currency the reference data lists and marks active. One read.
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, RepoError>;
}

/// The phone rule a customer's number is stored by: E.164, `+` and a number valid for its country code.
pub trait PhoneNumbers: Send + Sync {
    /// `raw` (surrounding blanks ignored) in E.164 form, or `None` when it is not such a number.
    fn to_e164(&self, raw: &str) -> Option<String>;
}
