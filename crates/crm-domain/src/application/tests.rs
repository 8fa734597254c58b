//! The use cases on the in-memory adapters: each rule's happy path, its refusals in the order the
//! API answers them, and a lost race decided again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use shared_kernel::application::{block_on, FixedClock};
use shared_kernel::error::Classified;
use shared_kernel::{Page, PageRequest};
use time::macros::{date, datetime};
use time::OffsetDateTime;
use uuid::Uuid;

use super::*;
use crate::customer::{
    Customer, CustomerChanges, CustomerCreated, CustomerError, NewCustomer, StatusTransition, TierChange,
};
use crate::memory::{InMemoryCrm, InMemoryUsers};
use crate::ports::{EmailScope, UserCustomerPlan};
use crate::query::CustomerFilter;
use crate::{CustomerStatus, DealError, DealStage, Email, NewDeal, RepoError};

const NOW: OffsetDateTime = datetime!(2026-03-01 10:00 UTC);
const REP: Uuid = Uuid::from_u128(1);
const RETIRED: Uuid = Uuid::from_u128(2);

fn setup() -> (InMemoryCrm, CrmPorts) {
    let store = InMemoryCrm::new();
    let users = InMemoryUsers::new();
    users.add_named(REP, UserStanding::Active, "Rita Rep");
    users.add(RETIRED, UserStanding::Inactive);
    let ports = CrmPorts::in_memory(&store, Arc::new(users), Arc::new(FixedClock(NOW)));
    (store, ports)
}

fn ada() -> NewCustomer {
    NewCustomer { name: "Ada".into(), email: "ada@example.com".into(), ..NewCustomer::default() }
}

#[test]
fn customers_created_together_get_the_answers_one_by_one_would_give() {
    let (_, ports) = setup();
    let customers = CustomerService::new(&ports);
    let bob = NewCustomer { name: "Bob".into(), email: "bob@example.com".into(), ..NewCustomer::default() };
    let inputs = vec![
        ada(),
        NewCustomer { email: "nope".into(), ..ada() },
        NewCustomer { assigned_to: Some(RETIRED), ..bob.clone() },
        ada(),
        bob,
    ];
    let answers = block_on(customers.create_many(inputs));
    assert_eq!(answers.len(), 5);
    assert!(answers[0].is_ok() && answers[4].is_ok(), "{answers:?}");
    assert_eq!(answers[1], Err(CrmError::Customer(CustomerError::InvalidEmail)));
    assert_eq!(answers[2], Err(CrmError::UserNotFound { field: "assigned_to" }));
    assert_eq!(answers[3], Err(CrmError::Storage(RepoError::Conflict { field: "email" })));
}

#[test]
fn a_customer_is_created_after_its_references_are_checked_in_order() {
    let (_, ports) = setup();
    let customers = CustomerService::new(&ports);
    let unknown = Uuid::from_u128(99);
    let both_wrong = NewCustomer { company_id: Some(unknown), assigned_to: Some(RETIRED), ..ada() };
    assert_eq!(block_on(customers.create(both_wrong)), Err(CrmError::CompanyNotFound { field: Some("company_id") }));
    let retired_rep = NewCustomer { assigned_to: Some(RETIRED), user_id: Some(unknown), ..ada() };
    assert_eq!(block_on(customers.create(retired_rep)), Err(CrmError::UserNotFound { field: "assigned_to" }));
    let no_user = NewCustomer { user_id: Some(unknown), ..ada() };
    assert_eq!(block_on(customers.create(no_user)), Err(CrmError::UserNotFound { field: "user_id" }));
    let bad_email = NewCustomer { email: "nope".into(), company_id: Some(unknown), ..ada() };
    assert_eq!(block_on(customers.create(bad_email)), Err(CrmError::Customer(CustomerError::InvalidEmail)));

    let created = block_on(customers.create(NewCustomer { assigned_to: Some(REP), ..ada() })).expect("created");
    assert_eq!((created.status, created.created_at), (CustomerStatus::Lead, NOW));
    assert_eq!(block_on(customers.create(ada())), Err(CrmError::Storage(RepoError::Conflict { field: "email" })));
}

#[test]
fn status_moves_follow_the_state_machine_and_missing_customers_have_their_code() {
    let (store, ports) = setup();
    let customers = CustomerService::new(&ports);
    let id = block_on(customers.create(ada())).expect("created").id;
    assert!(matches!(
        block_on(customers.convert(id)),
        Err(CrmError::Customer(CustomerError::InvalidStatusTransition { .. }))
    ));
    assert_eq!(block_on(customers.qualify(id)).expect("qualified").status, CustomerStatus::Prospect);
    assert_eq!(
        block_on(customers.set_status(id, CustomerStatus::Customer, None)).expect("converted").status,
        CustomerStatus::Customer
    );
    let names: Vec<String> = store.events().into_iter().map(|e| e.name).collect();
    assert!(names.contains(&"customer.converted".to_owned()), "{names:?}");
    assert!(matches!(
        block_on(customers.change_tier(id, crate::Tier::Free)),
        Err(CrmError::Customer(CustomerError::InvalidTierChange { .. }))
    ));
    assert_eq!(block_on(customers.change_tier(id, crate::Tier::Pro)).expect("upgraded").tier, crate::Tier::Pro);
    assert_eq!(block_on(customers.assign(id, Some(RETIRED))), Err(CrmError::UserNotFound { field: "assigned_to" }));
    assert_eq!(block_on(customers.assign(id, Some(REP))).expect("assigned").assigned_to, Some(REP));
    block_on(customers.delete(id)).expect("deleted");
    assert_eq!(block_on(customers.qualify(id)), Err(CrmError::CustomerNotFound));
    assert_eq!(block_on(customers.delete(id)), Err(CrmError::CustomerNotFound));
}

/// A customer store where another writer qualifies the customer just before this one's first save.
struct Racing {
    inner: InMemoryCrm,
    raced: AtomicBool,
}

#[async_trait]
impl crate::ports::CustomerRepository for Racing {
    async fn create(&self, created: &CustomerCreated) -> Result<Customer, RepoError> {
        crate::ports::CustomerRepository::create(&self.inner, created).await
    }
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Customer>, RepoError> {
        crate::ports::CustomerRepository::find_by_id(&self.inner, id).await
    }
    async fn find_by_email(&self, email: &Email, scope: EmailScope) -> Result<Option<Customer>, RepoError> {
        self.inner.find_by_email(email, scope).await
    }
    async fn find_by_user_id(&self, user_id: Uuid) -> Result<Option<Customer>, RepoError> {
        self.inner.find_by_user_id(user_id).await
    }
    async fn list(&self, filter: &CustomerFilter, page: PageRequest) -> Result<Page<Customer>, RepoError> {
        crate::ports::CustomerRepository::list(&self.inner, filter, page).await
    }
    async fn update(&self, customer: &Customer) -> Result<Customer, RepoError> {
        crate::ports::CustomerRepository::update(&self.inner, customer).await
    }
    async fn save_transition(&self, transition: &StatusTransition) -> Result<Customer, RepoError> {
        if !self.raced.swap(true, Ordering::SeqCst) {
            let rival = transition.customer.clone();
            let stored = crate::ports::CustomerRepository::find_by_id(&self.inner, rival.id).await?.expect("stored");
            self.inner.save_transition(&stored.qualify(NOW).expect("lead")).await?;
        }
        self.inner.save_transition(transition).await
    }
    async fn save_tier_change(&self, change: &TierChange) -> Result<Customer, RepoError> {
        self.inner.save_tier_change(change).await
    }
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        crate::ports::CustomerRepository::soft_delete(&self.inner, id, at).await
    }
}

#[test]
fn a_move_that_lost_its_race_is_decided_again_on_the_fresh_state() {
    let (store, mut ports) = setup();
    ports.customers = Arc::new(Racing { inner: store, raced: AtomicBool::new(false) });
    let customers = CustomerService::new(&ports);
    let id = block_on(customers.create(ada())).expect("created").id;
    // The rival qualified it first: qualifying again is now refused with the precise code.
    let refused = block_on(customers.qualify(id));
    assert!(matches!(refused, Err(CrmError::Customer(CustomerError::InvalidStatusTransition { .. }))), "{refused:?}");
    assert_eq!(block_on(customers.get(id)).expect("read").status, CustomerStatus::Prospect);
}

#[test]
fn deals_check_their_customer_then_their_rep_and_close_for_good() {
    let (_, ports) = setup();
    let (customers, deals) = (CustomerService::new(&ports), DealService::new(&ports));
    let customer = block_on(customers.create(ada())).expect("created");
    let input = |customer_id, assigned_to| NewDeal {
        customer_id,
        assigned_to,
        name: "Plan".into(),
        value: 100,
        currency: None,
        source: None,
        expected_close_date: date!(2026 - 06 - 30),
        tags: vec![],
    };
    assert_eq!(block_on(deals.create(input(Uuid::from_u128(9), RETIRED))), Err(CrmError::CustomerNotFound));
    assert_eq!(
        block_on(deals.create(input(customer.id, RETIRED))),
        Err(CrmError::UserNotFound { field: "assigned_to" })
    );
    let deal = block_on(deals.create(input(customer.id, REP))).expect("opened");
    let same = block_on(deals.move_stage(deal.id, DealStage::Lead)).expect("no-op");
    assert_eq!(same.version, deal.version, "a move to the current stage changes nothing");
    block_on(deals.win(deal.id, date!(2026 - 03 - 01))).expect("won");
    assert!(matches!(
        block_on(deals.move_stage(deal.id, DealStage::Lead)),
        Err(CrmError::Deal(DealError::MoveStageFailed { .. }))
    ));
    assert!(matches!(block_on(deals.update_value(deal.id, 5, None)), Err(CrmError::Deal(DealError::Closed { .. }))));
    assert_eq!(block_on(deals.get(Uuid::from_u128(5))), Err(CrmError::DealNotFound));
}

#[test]
fn interactions_take_their_customers_company_and_check_attendees() {
    let (_, ports) = setup();
    let (companies, customers) = (CompanyService::new(&ports), CustomerService::new(&ports));
    let interactions = InteractionService::new(&ports);
    let company =
        block_on(companies.create(crate::NewCompany { name: "Co".into(), ..Default::default() })).expect("co");
    let customer = block_on(customers.create(NewCustomer { company_id: Some(company.id), ..ada() })).expect("created");
    let input = crate::NewInteraction {
        customer_id: customer.id,
        company_id: None,
        interaction_type: crate::InteractionType::Call,
        direction: crate::Direction::Inbound,
        subject: "Hello".into(),
        description: None,
        created_by: REP,
        attendees: vec![],
        started_at: NOW,
    };
    let call = block_on(interactions.create(input.clone())).expect("logged");
    assert_eq!(call.company_id, Some(company.id));
    let listed = block_on(interactions.of_customer(customer.id, PageRequest::default())).expect("listed");
    assert_eq!(listed.items[0].created_by_name.as_deref(), Some("Rita Rep"), "named from the user directory");
    let stranger = Uuid::from_u128(9);
    let with_stranger = crate::NewInteraction { attendees: vec![RETIRED, stranger], ..input.clone() };
    assert_eq!(
        block_on(interactions.create(with_stranger)).map(|i| i.id),
        Err(CrmError::from(RepoError::MissingReference { field: "attendees" })),
        "every attendee must be a user"
    );
    let with_retired = crate::NewInteraction { attendees: vec![RETIRED], ..input.clone() };
    assert_eq!(block_on(interactions.create(with_retired)).expect("logged").attendees, vec![RETIRED]);
    let elsewhere = crate::NewInteraction { company_id: Some(Uuid::from_u128(3)), ..input };
    assert_eq!(block_on(interactions.create(elsewhere)), Err(CrmError::CompanyNotFound { field: Some("company_id") }));
    assert_eq!(
        block_on(interactions.add_attendee(call.id, Uuid::from_u128(4))),
        Err(CrmError::UserNotFound { field: "attendee_id" })
    );
    assert_eq!(block_on(interactions.add_attendee(call.id, RETIRED)).expect("added").attendees, vec![RETIRED]);
    block_on(interactions.end(call.id, NOW)).expect("ended");
    let again = block_on(interactions.end(call.id, NOW));
    assert_eq!(again, Err(CrmError::Interaction(crate::InteractionError::AlreadyEnded)));
    assert_eq!(
        block_on(interactions.of_company(Uuid::from_u128(3), PageRequest::default())).map(|p| p.total),
        Err(CrmError::CompanyNotFound { field: Some("company_id") })
    );
}

#[test]
fn a_registered_user_becomes_a_customer_once_or_is_linked_by_email() {
    let store = InMemoryCrm::new();
    let service = CustomerFromUserService::new(Arc::new(store.clone()), Arc::new(FixedClock(NOW)));
    let user = |n: u128, email: &str| RegisteredUser {
        user_id: Uuid::from_u128(n),
        name: "Reg".into(),
        email: Email::parse(email).expect("valid"),
    };
    let event = Uuid::from_u128(100);
    let made = block_on(service.customer_from_user(event, user(10, "new@example.com"))).expect("settled");
    assert!(matches!(made, Some(UserCustomerPlan::Create(_))));
    assert_eq!(block_on(service.customer_from_user(event, user(10, "new@example.com"))), Ok(None), "redelivered");
    let other_event = block_on(service.customer_from_user(Uuid::from_u128(101), user(10, "new@example.com")));
    assert_eq!(other_event, Ok(Some(UserCustomerPlan::Nothing)));

    let known =
        CustomerService::new(&CrmPorts::in_memory(&store, Arc::new(InMemoryUsers::new()), Arc::new(FixedClock(NOW))));
    let existing = block_on(known.create(NewCustomer { email: "known@example.com".into(), ..ada() })).expect("created");
    let linked = block_on(service.customer_from_user(Uuid::from_u128(102), user(11, "known@example.com"))).expect("ok");
    assert!(matches!(linked, Some(UserCustomerPlan::Link { customer_id, .. }) if customer_id == existing.id));
    assert_eq!(block_on(known.get(existing.id)).expect("read").user_id, Some(Uuid::from_u128(11)));
}

#[test]
fn a_customers_phone_is_stored_in_e164_and_checked_before_anything_else() {
    let (_, ports) = setup();
    let customers = CustomerService::new(&ports);
    let unknown = Uuid::from_u128(99);
    let bad =
        NewCustomer { phone: Some("044 123 4567".into()), email: "nope".into(), company_id: Some(unknown), ..ada() };
    assert_eq!(block_on(customers.create(bad)), Err(CrmError::InvalidPhone), "the phone before the other rules");
    assert_eq!((CrmError::InvalidPhone.code(), CrmError::InvalidPhone.field()), ("INVALID_PHONE", Some("phone")));
    let spaced = NewCustomer { phone: Some(" +380 44 123-4567 ".into()), ..ada() };
    let created = block_on(customers.create(spaced)).expect("created");
    assert_eq!(created.phone.as_deref(), Some("+380441234567"));
    let changes =
        |phone: Option<&str>| CustomerChanges { phone: Some(phone.map(str::to_owned)), ..CustomerChanges::default() };
    let missing = block_on(customers.update_details(unknown, changes(Some("+1"))));
    assert_eq!(missing, Err(CrmError::InvalidPhone), "before the customer is read");
    let edited = block_on(customers.update_details(created.id, changes(Some("+1 (415) 555 2671")))).expect("edited");
    assert_eq!(edited.phone.as_deref(), Some("+14155552671"));
    let cleared = block_on(customers.update_details(created.id, changes(Some("  ")))).expect("cleared");
    assert_eq!(cleared.phone, None);
}

#[test]
fn a_deals_currency_is_an_active_one_checked_before_anything_else() {
    let (store, ports) = setup();
    let (customers, deals) = (CustomerService::new(&ports), DealService::new(&ports));
    let customer = block_on(customers.create(ada())).expect("created");
    let chf = shared_kernel::CurrencyCode::parse("CHF").expect("CHF");
    let input = |customer_id, currency| NewDeal {
        customer_id,
        assigned_to: REP,
        name: "Plan".into(),
        value: 100,
        currency,
        source: None,
        expected_close_date: date!(2026 - 06 - 30),
        tags: vec![],
    };
    let refused = block_on(deals.create(input(Uuid::from_u128(9), Some(chf))));
    assert_eq!(refused, Err(CrmError::InactiveCurrency), "the currency before the customer");
    let error = CrmError::InactiveCurrency;
    assert_eq!((error.code(), error.field()), ("VALIDATION_ERROR", Some("currency")));
    store.set_currency(chf, true);
    let deal = block_on(deals.create(input(customer.id, Some(chf)))).expect("opened");
    assert_eq!(deal.currency, chf);
    store.set_currency(chf, false);
    let missing = block_on(deals.update_value(Uuid::from_u128(9), 5, Some(chf)));
    assert_eq!(missing, Err(CrmError::InactiveCurrency), "before the deal is read");
    let kept = block_on(deals.update_value(deal.id, 5, None)).expect("the deal keeps its currency");
    assert_eq!((kept.value, kept.currency), (5, chf));
}
