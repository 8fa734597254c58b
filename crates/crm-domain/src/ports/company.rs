//! Company storage port.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::RepoError;
use crate::company::Company;

/// `GET /companies?search=`: case-insensitive substring of the name (literal, `%`/`_` escaped).
/// Newest first, then `id DESC`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompanyFilter {
    /// Text the name must contain; `None` lists every company.
    pub search: Option<String>,
}

/// Companies in storage, under the contract of [`crate::ports`].
#[async_trait]
pub trait CompanyRepository: Send + Sync {
    /// Inserts a company made by [`Company::new`] and returns it as stored.
    async fn create(&self, company: &Company) -> Result<Company, RepoError>;

    /// The live company `id`, if any.
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Company>, RepoError>;

    /// Whether the live company `id` exists: one read (another context's reference check).
    async fn exists(&self, id: Uuid) -> Result<bool, RepoError> {
        Ok(self.find_by_id(id).await?.is_some())
    }

    /// One page of the live companies `filter` selects.
    async fn list(&self, filter: &CompanyFilter, page: PageRequest) -> Result<Page<Company>, RepoError>;

    /// Writes `name`, `website`, `industry`, `updated_at` over `company.version` (the version it was read
    /// at): `Stale` if the row changed meanwhile, `NotFound` if it is gone.
    async fn update(&self, company: &Company) -> Result<Company, RepoError>;

    /// Sets `deleted_at`; `NotFound` if missing or already deleted.
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError>;
}
