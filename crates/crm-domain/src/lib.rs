//! Customer management domain: customers, deals, interactions and companies.
//!
//! Pure rules only. Every change is a function from the current state (and an instant passed in by the
//! caller; nothing here reads the clock) to the next state plus what must be recorded with it: history
//! rows and events. The ports in [`ports`] say how adapters store them atomically; this crate has no I/O.

pub mod company;
pub mod customer;
pub mod deal;
/// The one email rule of every context, re-exported so `crm_domain::email::Email` keeps working.
pub use shared_kernel::email;
pub mod enums;
pub mod error;
pub mod events;
pub mod interaction;
pub mod ports;
pub mod query;
mod validate;

pub use company::{Company, CompanyChanges, CompanyError, NewCompany};
pub use customer::{
    Customer, CustomerChanges, CustomerCreated, CustomerError, NewCustomer, StatusChange, StatusMove, StatusTransition,
    TierChange,
};
pub use deal::{default_currency, Deal, DealCreated, DealError, NewDeal, StageChange, StageTransition};
pub use email::{Email, InvalidEmail};
pub use enums::{
    CustomerStatus, CustomerType, DealSource, DealStage, Direction, InteractionType, Outcome, ParseEnumError, Tier,
};
pub use error::FieldError;
pub use interaction::{Interaction, InteractionError, NewInteraction};
pub use ports::{
    CompanyFilter, CompanyRepository, CustomerRepository, DealFilter, DealRepository, EmailScope, FollowUpFilter,
    InteractionFilter, InteractionRepository, InteractionView, RepoError, WonTotals,
};
pub use query::{CustomerFilter, CustomerQuery, CustomerSort, CustomerSortField, QueryError, SortDirection};
