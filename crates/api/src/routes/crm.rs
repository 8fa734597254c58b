//! Customer management (`/customer-mgmt`): customers, companies, deals and interactions.
//! Every handler checks its `resource:action` permission first.

pub mod change_views;
pub mod companies;
pub mod customer_lifecycle;
pub mod customers;
pub mod deal_stages;
pub mod deals;
pub mod interaction_edits;
pub mod interactions;
pub mod requests;
pub mod responses;
pub mod wire;

use std::sync::Arc;

use actix_web::web;
use crm_domain::{CompanyRepository, CustomerRepository, DealRepository, InteractionRepository};
use infrastructure::crm::{PgCompanyRepository, PgCustomerRepository, PgDealRepository, PgInteractionRepository};
use infrastructure::DbPool;

/// The customer-management repositories the handlers use.
#[derive(Clone)]
pub struct CrmServices {
    pub customers: Arc<dyn CustomerRepository>,
    pub companies: Arc<dyn CompanyRepository>,
    pub deals: Arc<dyn DealRepository>,
    pub interactions: Arc<dyn InteractionRepository>,
}

impl CrmServices {
    pub fn new(pool: &DbPool) -> Self {
        Self {
            customers: Arc::new(PgCustomerRepository::new(pool.clone())),
            companies: Arc::new(PgCompanyRepository::new(pool.clone())),
            deals: Arc::new(PgDealRepository::new(pool.clone())),
            interactions: Arc::new(PgInteractionRepository::new(pool.clone())),
        }
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    // Each module registers its fixed segments (`/email/…`, `/stats/…`) before its `{id}` routes.
    customers::configure(cfg);
    customer_lifecycle::configure(cfg);
    companies::configure(cfg);
    deals::configure(cfg);
    deal_stages::configure(cfg);
    interactions::configure(cfg);
    interaction_edits::configure(cfg);
}
