//! The reference data (currencies, countries) as the contexts' own ports ask for it
//! (docs/architecture.md): one adapter over the same reference-data queries the public
//! `/shared/...` routes read, so every context applies the same currency and country rule.

use async_trait::async_trait;
use postgres_toolkit::reference::queries as q;
use postgres_toolkit::DbPool;
use shared_kernel::{CurrencyCode, StorageError};

/// Currencies and countries as the reference data holds them (operators switch currencies on and off).
#[derive(Clone)]
pub struct ReferenceData {
    pool: DbPool,
}

impl ReferenceData {
    pub fn new(pool: DbPool) -> Self {
        Self { pool }
    }

    /// Whether the reference data lists `code` and marks it active.
    #[tracing::instrument(name = "reference.currency_is_active", skip_all, fields(currency = %code.as_str()))]
    pub async fn currency_is_active(&self, code: CurrencyCode) -> Result<bool, StorageError> {
        Ok(q::find_currency(&self.pool, code.as_str()).await?.is_some_and(|row| row.is_active))
    }

    /// Whether the reference data lists the country `code` (ISO 3166-1 alpha-2, upper case).
    #[tracing::instrument(name = "reference.country_exists", skip_all, fields(country = %code))]
    pub async fn country_exists(&self, code: &str) -> Result<bool, StorageError> {
        Ok(q::find_country(&self.pool, code).await?.is_some())
    }
}

#[async_trait]
impl order_domain::application::CurrencyRegister for ReferenceData {
    #[tracing::instrument(name = "orders.currency_is_active", skip_all, fields(currency = %currency.as_str()))]
    async fn is_active(&self, currency: CurrencyCode) -> Result<bool, StorageError> {
        self.currency_is_active(currency).await
    }
}

#[async_trait]
impl crm_domain::ports::Currencies for ReferenceData {
    #[tracing::instrument(name = "crm.currency_is_active", skip_all, fields(currency = %code.as_str()))]
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, StorageError> {
        self.currency_is_active(code).await
    }
}

#[async_trait]
impl warehouse_domain::Currencies for ReferenceData {
    #[tracing::instrument(name = "warehouse.currency_is_active", skip_all, fields(currency = %code.as_str()))]
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, StorageError> {
        self.currency_is_active(code).await
    }
}

#[async_trait]
impl warehouse_domain::Countries for ReferenceData {
    #[tracing::instrument(name = "warehouse.country_exists", skip_all, fields(country = %code))]
    async fn exists(&self, code: warehouse_domain::CountryCode) -> Result<bool, StorageError> {
        self.country_exists(code.as_str()).await
    }
}
