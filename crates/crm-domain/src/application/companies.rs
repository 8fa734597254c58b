//! Company use cases: create, read, edit, delete.

use std::sync::Arc;

use shared_kernel::application::{settle_edit, Attempt, Clock};
use uuid::Uuid;

use super::{CrmError, CrmPorts};
use crate::company::{Company, CompanyChanges, NewCompany};
use crate::ports::CompanyRepository;
use crate::RepoError;

/// The company use cases.
#[derive(Clone)]
pub struct CompanyService {
    companies: Arc<dyn CompanyRepository>,
    clock: Arc<dyn Clock>,
}

impl CompanyService {
    /// The service over `ports`.
    pub fn new(ports: &CrmPorts) -> Self {
        Self { companies: ports.companies.clone(), clock: ports.clock.clone() }
    }

    /// Creates a company.
    #[tracing::instrument(skip_all)]
    pub async fn create(&self, input: NewCompany) -> Result<Company, CrmError> {
        let company = Company::new(input, self.clock.now())?;
        Ok(self.companies.create(&company).await?)
    }

    /// The live company `id`, or `CompanyNotFound`.
    #[tracing::instrument(skip_all, fields(company_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Company, CrmError> {
        self.companies.find_by_id(id).await?.ok_or(CrmError::CompanyNotFound { field: None })
    }

    /// Edits the name, website and industry over the version read; a change made meanwhile is re-read
    /// and the edit applied again.
    #[tracing::instrument(skip_all, fields(company_id = %id))]
    pub async fn update(&self, id: Uuid, changes: CompanyChanges) -> Result<Company, CrmError> {
        let changes = &changes;
        settle_edit(
            self.get(id).await?,
            || self.get(id),
            |company| async move {
                let next = company.update(changes.clone(), self.clock.now())?;
                match self.companies.update(&next).await {
                    Err(RepoError::NotFound) => Err(CrmError::CompanyNotFound { field: None }),
                    saved => Attempt::of(saved),
                }
            },
        )
        .await
    }

    /// Soft-deletes the company (`NotFound` storage error when missing).
    #[tracing::instrument(skip_all, fields(company_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), CrmError> {
        Ok(self.companies.soft_delete(id, self.clock.now()).await?)
    }
}
