//! The contract suites of the customer-management ports (feature `contract`): one async function per
//! port, each panicking (plain `assert!`) when an adapter breaks a promise of [`crate::ports`]. The
//! in-memory adapters run them in `crates/crm-domain/tests/memory_contract.rs`, the PostgreSQL ones
//! in `tests/tests/api/crm_contract.rs`.
//!
//! The suites make their own records with fresh emails, so other records in the same store do not
//! disturb them. An adapter with foreign keys needs the users the caller names to exist: `rep` (for
//! deals and interactions) and, for [`user_customers`], two users without a customer.

use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::company::{Company, CompanyChanges, NewCompany};
use crate::customer::{Customer, NewCustomer};
use crate::deal::{Deal, NewDeal};
use crate::enums::{CustomerStatus, DealStage, InteractionType};
use crate::interaction::{Interaction, NewInteraction};
use crate::ports::{
    CompanyRepository, CustomerRepository, DealRepository, InteractionFilter, InteractionRepository, RepoError,
    UserCustomerMatch, UserCustomerPlan, UserCustomers,
};
use crate::Email;

/// Now, in whole seconds (every store keeps those exactly).
fn now() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(0).unwrap_or(t)
}

fn fresh_email() -> String {
    format!("contract-{}@example.com", shared_kernel::new_id().simple())
}

async fn new_customer(repo: &dyn CustomerRepository, company_id: Option<Uuid>) -> Customer {
    let input = NewCustomer { name: "Contract".into(), email: fresh_email(), company_id, ..NewCustomer::default() };
    repo.create(&Customer::new(input, now()).expect("valid")).await.expect("create customer")
}

/// Customers: created at version 1 and found again; edits only over the version read; status moves
/// only from the status read; an email taken among a company's live customers is a conflict; a
/// deleted customer is gone for reads and writes.
pub async fn customers(repo: &dyn CustomerRepository, companies: &dyn CompanyRepository) {
    let made = Company::new(NewCompany { name: "C".into(), ..NewCompany::default() }, now()).expect("valid");
    let company = companies.create(&made).await.expect("create company");
    let ada = new_customer(repo, Some(company.id)).await;
    assert_eq!(ada.version, 1);
    assert_eq!(repo.find_by_id(ada.id).await.expect("find"), Some(ada.clone()));
    assert!(repo.exists(ada.id).await.expect("exists"));
    let again = NewCustomer {
        name: "Twin".into(),
        email: ada.email.as_str().into(),
        company_id: Some(company.id),
        ..NewCustomer::default()
    };
    let twin = repo.create(&Customer::new(again, now()).expect("valid")).await;
    assert_eq!(twin, Err(RepoError::Conflict { field: "email" }));

    let renamed = repo.update(&Customer { name: "Ada".into(), ..ada.clone() }).await.expect("update");
    assert!(renamed.version > ada.version && renamed.name == "Ada");
    assert_eq!(repo.update(&Customer { name: "Late".into(), ..ada.clone() }).await, Err(RepoError::Stale));

    let qualified = renamed.qualify(now()).expect("lead qualifies");
    let saved = repo.save_transition(&qualified).await.expect("move");
    assert_eq!((saved.status, saved.name.as_str()), (CustomerStatus::Prospect, "Ada"));
    assert_eq!(repo.save_transition(&qualified).await, Err(RepoError::Stale), "moved from lead already");

    repo.soft_delete(ada.id, now()).await.expect("delete");
    assert_eq!(repo.find_by_id(ada.id).await.expect("find"), None);
    assert!(!repo.exists(ada.id).await.expect("exists"));
    assert_eq!(repo.soft_delete(ada.id, now()).await, Err(RepoError::NotFound));
    assert_eq!(repo.update(&saved).await, Err(RepoError::NotFound));
}

/// Companies: created, edited over the version read only, soft-deleted once.
pub async fn companies(repo: &dyn CompanyRepository) {
    let made = Company::new(NewCompany { name: "Contract Co".into(), ..NewCompany::default() }, now()).expect("valid");
    let company = repo.create(&made).await.expect("create");
    assert!(repo.exists(company.id).await.expect("exists"));
    let changes = CompanyChanges { name: Some("Renamed".into()), ..CompanyChanges::default() };
    let renamed = repo.update(&company.update(changes, now()).expect("valid")).await.expect("update");
    assert_eq!(renamed.name, "Renamed");
    assert_eq!(repo.update(&company).await, Err(RepoError::Stale));
    repo.soft_delete(company.id, now()).await.expect("delete");
    assert_eq!(repo.find_by_id(company.id).await.expect("find"), None);
    assert_eq!(repo.soft_delete(company.id, now()).await, Err(RepoError::NotFound));
}

/// Deals: created at `lead` for an existing customer only; stage moves only from the stage read;
/// edits only over the version read and while open; counted in the pipeline.
pub async fn deals(repo: &dyn DealRepository, customers: &dyn CustomerRepository, rep: Uuid) {
    let customer = new_customer(customers, None).await;
    let input = |customer_id| NewDeal {
        customer_id,
        assigned_to: rep,
        name: "Contract deal".into(),
        value: 1_000,
        currency: None,
        source: None,
        expected_close_date: (now() + Duration::days(30)).date(),
        tags: vec![],
    };
    let missing = Deal::new(input(Uuid::from_u128(0xdead)), now()).expect("valid");
    assert_eq!(repo.create(&missing).await, Err(RepoError::MissingReference { field: "customer_id" }));
    let deal = repo.create(&Deal::new(input(customer.id), now()).expect("valid")).await.expect("create");
    assert_eq!((deal.stage, deal.version), (DealStage::Lead, 1));
    let before = repo.pipeline_counts().await.expect("counts");
    assert_eq!(before.len(), DealStage::ALL.len());

    let edited = repo.update_open(&deal.update_value(2_000, deal.currency, now()).expect("open")).await.expect("edit");
    assert_eq!(edited.value, 2_000);
    assert_eq!(repo.update_open(&deal).await, Err(RepoError::Stale));
    let proposal = edited.move_to(DealStage::Proposal, now()).expect("open").expect("a move");
    let moved = repo.save_stage_change(&proposal).await.expect("move");
    assert_eq!((moved.stage, moved.probability), (DealStage::Proposal, 50));
    assert_eq!(repo.save_stage_change(&proposal).await, Err(RepoError::Stale));
    let won = repo.save_stage_change(&moved.win(now().date(), now()).expect("open")).await.expect("win");
    assert_eq!(won.stage, DealStage::ClosedWon);
    assert_eq!(repo.update_open(&won).await, Err(RepoError::Stale), "a closed deal takes no edit");
    assert!(repo.won_totals().await.expect("won").count >= 1);
    repo.soft_delete(deal.id, now()).await.expect("delete");
    assert_eq!(repo.find_by_id(deal.id).await.expect("find"), None);
}

/// Interactions: created with their customer's name in lists; edits over the version read; ended
/// once (`Stale` the second time); deleted once.
pub async fn interactions(repo: &dyn InteractionRepository, customers: &dyn CustomerRepository, rep: Uuid) {
    let customer = new_customer(customers, None).await;
    let started_at = now() - Duration::hours(1);
    let input = NewInteraction {
        customer_id: customer.id,
        company_id: None,
        interaction_type: InteractionType::Call,
        direction: crate::enums::Direction::Outbound,
        subject: "Contract call".into(),
        description: None,
        created_by: rep,
        attendees: vec![],
        started_at,
    };
    let call = repo.create(&Interaction::new(input, now()).expect("valid")).await.expect("create");
    let filter = InteractionFilter { customer_id: Some(customer.id), ..InteractionFilter::default() };
    let listed = repo.list(&filter, shared_kernel::PageRequest::default()).await.expect("list");
    assert_eq!(listed.items.len(), 1);
    assert_eq!((listed.items[0].interaction.id, listed.items[0].customer_name.as_str()), (call.id, "Contract"));

    let edited = repo.update(&call.update_content("Renamed", None, now()).expect("valid")).await.expect("edit");
    assert_eq!(edited.subject, "Renamed");
    assert_eq!(repo.update(&call).await, Err(RepoError::Stale));
    let ended = edited.end(now(), now()).expect("in progress");
    assert_eq!(repo.save_end(&ended).await.expect("end").duration_sec, Some(3600));
    assert_eq!(repo.save_end(&ended).await, Err(RepoError::Stale));
    repo.soft_delete(call.id, now()).await.expect("delete");
    assert_eq!(repo.find_by_id(call.id).await.expect("find"), None);
    assert_eq!(repo.soft_delete(call.id, now()).await, Err(RepoError::NotFound));
}

/// Registration: a delivery is settled once; a user without a customer gets the one decided; a
/// customer without a company that has the user's email is offered for linking; a user already
/// linked is `Linked`. `new_user` and `linked_user` are users that have no customer yet.
pub async fn user_customers(
    repo: &dyn UserCustomers,
    customers: &dyn CustomerRepository,
    new_user: Uuid,
    linked_user: Uuid,
) {
    let email = Email::parse(&fresh_email()).expect("valid");
    let input = NewCustomer {
        name: "Reg".into(),
        email: email.as_str().into(),
        user_id: Some(new_user),
        ..NewCustomer::default()
    };
    let created = Customer::new(input, now()).expect("valid");
    let create = |found: UserCustomerMatch| match found {
        UserCustomerMatch::Neither => UserCustomerPlan::Create(Box::new(created.clone())),
        _ => UserCustomerPlan::Nothing,
    };
    let delivery = shared_kernel::new_id();
    let settled = repo.settle_registration(delivery, new_user, &email, &create).await.expect("settle");
    assert!(matches!(settled, Some(UserCustomerPlan::Create(_))));
    assert_eq!(customers.find_by_user_id(new_user).await.expect("find").map(|c| c.id), Some(created.customer.id));
    assert_eq!(repo.settle_registration(delivery, new_user, &email, &create).await, Ok(None), "settled once");
    let seen = |found: UserCustomerMatch| {
        assert_eq!(found, UserCustomerMatch::Linked);
        UserCustomerPlan::Nothing
    };
    let again = repo.settle_registration(shared_kernel::new_id(), new_user, &email, &seen).await;
    assert_eq!(again, Ok(Some(UserCustomerPlan::Nothing)));

    let known = new_customer(customers, None).await;
    let at = now();
    let link = |found: UserCustomerMatch| match found {
        UserCustomerMatch::SameEmail { customer_id } => {
            UserCustomerPlan::Link { customer_id, user_id: linked_user, at }
        }
        _ => UserCustomerPlan::Nothing,
    };
    let linked = repo.settle_registration(shared_kernel::new_id(), linked_user, &known.email, &link).await;
    assert!(matches!(linked, Ok(Some(UserCustomerPlan::Link { customer_id, .. })) if customer_id == known.id));
    assert_eq!(customers.find_by_id(known.id).await.expect("find").and_then(|c| c.user_id), Some(linked_user));
}
