//! Customer management domain: customers, deals, interactions and companies.
//!
//! Pure rules only. Every change is a function from the current state (and an instant passed in by the
//! caller; nothing here reads the clock) to the next state plus what must be recorded with it: history
//! rows and events. The ports in [`ports`] say how adapters store them atomically; this crate has no I/O.
//! docs/customer-management.md describes the behaviour seen from the API.
//!
//! # Aggregates
//!
//! - [`Customer`]: who Tally sells to: a name, a unique [`Email`] (per company, or among customers
//!   without one), a lifecycle [`CustomerStatus`], a subscription [`Tier`], tags and an assigned sales
//!   rep. A customer belongs either to a user account (`user_id`) or to a company (`company_id`), never
//!   both; with a company it is a company contact ([`CustomerType`]).
//! - [`Deal`]: a sales opportunity of one customer, worth a positive amount of one currency, moving
//!   through the pipeline ([`DealStage`]); its win probability is always its stage's.
//! - [`Interaction`]: one logged call, email, meeting, note, sms or chat with a customer, with its
//!   attendees, outcome and follow-up.
//! - [`Company`]: the organisation a `company_id` names.
//!
//! Operations take `&self` and return the next value (with its history row and events where the
//! change is recorded), so a refused or failed save leaves nothing half-changed. Every record carries
//! a `version` (1 when created, bumped by the database on each update) and a `deleted_at` for soft
//! deletion.
//!
//! # State machines
//!
//! **Customer status** ([`customer::StatusMove`]); any other move is `INVALID_STATUS_TRANSITION`:
//!
//! | From | To | Trigger |
//! |---|---|---|
//! | `lead` | `prospect` | [`Customer::qualify`] |
//! | `prospect` | `customer` | [`Customer::convert`] (also emits `customer.converted`) |
//! | `customer` | `churned` | [`Customer::churn`], with an optional reason; sets `churned_at` |
//! | `churned` | `prospect` | [`Customer::reactivate`]; clears `churned_at` |
//!
//! [`Customer::transition_to`] reaches the same four moves by target status. A customer may be
//! created in any status.
//!
//! **Customer tier**: upgrades only, `free < basic < pro < enterprise` ([`Customer::change_tier`]);
//! anything else is `INVALID_TIER_CHANGE`.
//!
//! **Deal stage**: a deal starts at `lead`. An open stage (`lead`, `qualified`, `proposal`,
//! `negotiation`) may move to any other stage ([`Deal::move_to`]), or close: [`Deal::win`] to
//! `closed_won`, [`Deal::lose`] to `closed_lost`. Closed stages are final: a move is
//! `MOVE_STAGE_FAILED`, an edit `DEAL_CLOSED`.
//!
//! **Interaction**: in progress while `ended_at` is absent; [`Interaction::end`] ends it once and
//! sets its duration (`INTERACTION_ALREADY_ENDED` the second time).
//!
//! # Ports
//!
//! [`CustomerRepository`], [`DealRepository`], [`InteractionRepository`] and [`CompanyRepository`]
//! (object-safe, used as `Arc<dyn …>`). They fail with [`RepoError`], the shared storage error, and
//! promise (see [`ports`]): reads never see soft-deleted rows; a state change is saved only while the
//! stored state is still the one the move started from, and a plain edit only over the `version` it
//! was read at (`Stale` otherwise: reload and decide again); the row, its history row and its events
//! are written in one transaction.
//!
//! # Example
//!
//! Creating a customer and driving it through its lifecycle; each step yields what to save:
//!
//! ```
//! use crm_domain::{Customer, CustomerError, CustomerStatus, NewCustomer};
//! use time::macros::datetime;
//!
//! let created = Customer::new(
//!     NewCustomer { name: "Ada Lovelace".into(), email: " Ada@Example.com ".into(), ..Default::default() },
//!     datetime!(2026-03-01 10:00 UTC),
//! )?;
//! let customer = created.customer; // save with `CustomerRepository::create(&created)`
//! assert_eq!((customer.status, customer.email.as_str()), (CustomerStatus::Lead, "ada@example.com"));
//!
//! let qualified = customer.qualify(datetime!(2026-03-02 09:00 UTC))?;
//! let converted = qualified.customer.convert(datetime!(2026-03-05 09:00 UTC))?;
//! let names: Vec<&str> = converted.events.iter().map(|e| e.name.as_str()).collect();
//! assert_eq!(names, ["customer.status_changed", "customer.converted"]);
//! assert_eq!(converted.from, CustomerStatus::Prospect); // the conditional update expects it
//!
//! // A customer cannot skip back to lead.
//! let refused = converted.customer.transition_to(CustomerStatus::Lead, None, datetime!(2026-03-06 09:00 UTC));
//! assert!(matches!(refused, Err(CustomerError::InvalidStatusTransition { .. })));
//! # Ok::<(), CustomerError>(())
//! ```
//!
//! A deal moves freely while open and is final once won or lost:
//!
//! ```
//! use crm_domain::{Deal, DealError, DealStage, NewDeal};
//! use time::macros::{date, datetime};
//! use uuid::Uuid;
//!
//! let now = datetime!(2026-03-01 10:00 UTC);
//! let deal = Deal::new(
//!     NewDeal {
//!         customer_id: Uuid::from_u128(1),
//!         assigned_to: Uuid::from_u128(2),
//!         name: "Annual plan".into(),
//!         value: 120_000, // 1 200.00 USD
//!         currency: None,
//!         source: None,
//!         expected_close_date: date!(2026 - 06 - 30),
//!         tags: vec![],
//!     },
//!     now,
//! )?
//! .deal;
//! assert_eq!((deal.stage, deal.probability), (DealStage::Lead, 10));
//!
//! let proposal = deal.move_to(DealStage::Proposal, now)?.expect("a change");
//! assert_eq!(proposal.deal.probability, 50);
//! let won = proposal.deal.win(date!(2026 - 03 - 01), now)?;
//! assert_eq!((won.deal.stage, won.deal.probability), (DealStage::ClosedWon, 100));
//! assert!(matches!(won.deal.move_to(DealStage::Lead, now), Err(DealError::MoveStageFailed { .. })));
//! # Ok::<(), DealError>(())
//! ```
#![deny(missing_docs)]

pub mod application;
pub mod company;
#[cfg(feature = "contract")]
pub mod contract;
pub mod customer;
pub mod deal;
/// The one email rule of every context (docs/conventions.md, "Email addresses"), re-exported so
/// `crm_domain::email::Email` keeps working.
pub use shared_kernel::email;
pub mod enums;
pub mod error;
pub mod events;
pub mod interaction;
#[cfg(feature = "memory")]
pub mod memory;
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
    InteractionFilter, InteractionRepository, InteractionView, RepoError, UserCustomerMatch, UserCustomerPlan,
    UserCustomers, UserDirectory, UserStanding, WonTotals,
};
pub use query::{CustomerFilter, CustomerQuery, CustomerSort, CustomerSortField, QueryError, SortDirection};
