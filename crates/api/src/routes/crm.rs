//! Customer management (`/customer-mgmt`): customers, companies, deals and interactions.
//! Every handler checks its `resource:action` permission first; the use cases are
//! `crm_domain::application`'s, the handlers parse, call and map.

pub mod change_views;
pub mod companies;
pub mod customer_lifecycle;
pub mod customers;
pub mod deal_stages;
pub mod deals;
pub mod directory;
pub mod interaction_edits;
pub mod interactions;
pub mod requests;
pub mod responses;
pub mod wire;

use std::sync::Arc;

use actix_web::web;
use crm_domain::application::{
    CompanyService, CrmPorts, CustomerService, DealService, InteractionService, SystemClock,
};
use crm_domain::{CompanyRepository, CustomerRepository, DealRepository, InteractionRepository};
use crm_postgres::{PgCompanyRepository, PgCustomerRepository, PgDealRepository, PgInteractionRepository};
use identity_postgres::PgUserRepository;
use postgres_toolkit::DbPool;

/// The customer-management use cases, and the repositories the plain reads use.
#[derive(Clone)]
pub struct CrmServices {
    pub customers: Arc<dyn CustomerRepository>,
    pub companies: Arc<dyn CompanyRepository>,
    pub deals: Arc<dyn DealRepository>,
    pub interactions: Arc<dyn InteractionRepository>,
    pub customer_cases: CustomerService,
    pub company_cases: CompanyService,
    pub deal_cases: DealService,
    pub interaction_cases: InteractionService,
}

impl CrmServices {
    pub fn new(pool: &DbPool) -> Self {
        let ports = CrmPorts {
            customers: Arc::new(PgCustomerRepository::new(pool.clone())),
            companies: Arc::new(PgCompanyRepository::new(pool.clone())),
            deals: Arc::new(PgDealRepository::new(pool.clone())),
            interactions: Arc::new(PgInteractionRepository::new(pool.clone())),
            // Users are identity's: asked through its port, never its tables.
            users: Arc::new(directory::IdentityUsers::new(Arc::new(PgUserRepository::new(pool.clone())))),
            currencies: Arc::new(crate::reference_ports::ReferenceData::new(pool.clone())),
            phones: Arc::new(crate::phone::LibPhoneNumbers),
            clock: Arc::new(SystemClock),
        };
        Self {
            customer_cases: CustomerService::new(&ports),
            company_cases: CompanyService::new(&ports),
            deal_cases: DealService::new(&ports),
            interaction_cases: InteractionService::new(&ports),
            customers: ports.customers,
            companies: ports.companies,
            deals: ports.deals,
            interactions: ports.interactions,
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
