//! A sales pipeline through the application layer, on the in-memory adapters (no database):
//! `cargo run -p crm-domain --features memory --example sales_pipeline`.
//! Creates a company and a contact of it, qualifies the customer, opens a deal, moves it through the
//! stages to a win, and logs a call, printing each step and the events recorded.

use std::sync::Arc;

use crm_domain::application::{CompanyService, CrmPorts, CustomerService, DealService, InteractionService};
use crm_domain::memory::{InMemoryCrm, InMemoryUsers};
use crm_domain::{
    DealStage, Direction, InteractionType, NewCompany, NewCustomer, NewDeal, NewInteraction, UserStanding,
};
use shared_kernel::application::{block_on, FixedClock};
use time::macros::{date, datetime};
use uuid::Uuid;

fn main() -> Result<(), crm_domain::application::CrmError> {
    block_on(run())
}

async fn run() -> Result<(), crm_domain::application::CrmError> {
    let store = InMemoryCrm::new();
    let users = InMemoryUsers::new();
    let rep = users.add(Uuid::from_u128(1), UserStanding::Active);
    let ports = CrmPorts::in_memory(&store, Arc::new(users), Arc::new(FixedClock(datetime!(2026-03-02 09:00 UTC))));
    let (companies, customers) = (CompanyService::new(&ports), CustomerService::new(&ports));
    let (deals, interactions) = (DealService::new(&ports), InteractionService::new(&ports));

    let company =
        companies.create(NewCompany { name: "Analytical Engines Ltd".into(), ..NewCompany::default() }).await?;
    println!("company   {} {}", company.id, company.name);
    let contact = NewCustomer {
        name: "Ada Lovelace".into(),
        email: "ada@engines.example".into(),
        company_id: Some(company.id),
        assigned_to: Some(rep),
        ..NewCustomer::default()
    };
    let ada = customers.create(contact).await?;
    println!("customer  {} {} ({})", ada.id, ada.name, ada.status.as_str());
    let ada = customers.qualify(ada.id).await?;
    println!("qualified {} is now {}", ada.name, ada.status.as_str());

    let opened = NewDeal {
        customer_id: ada.id,
        assigned_to: rep,
        name: "Difference engine".into(),
        value: 1_200_000,
        currency: None,
        source: None,
        expected_close_date: date!(2026 - 06 - 30),
        tags: vec!["engines".into()],
    };
    let deal = deals.create(opened).await?;
    println!("deal      {} {} at {} ({}%)", deal.id, deal.name, deal.stage.as_str(), deal.probability);
    for stage in [DealStage::Qualified, DealStage::Proposal, DealStage::Negotiation] {
        let moved = deals.move_stage(deal.id, stage).await?;
        println!("deal      moved to {} ({}%)", moved.stage.as_str(), moved.probability);
    }
    let won = deals.win(deal.id, date!(2026 - 03 - 02)).await?;
    println!("deal      {} on {:?}", won.stage.as_str(), won.actual_close_date);

    let call = NewInteraction {
        customer_id: ada.id,
        company_id: None,
        interaction_type: InteractionType::Call,
        direction: Direction::Outbound,
        subject: "Thank-you call".into(),
        description: Some("Delivery in June".into()),
        created_by: rep,
        attendees: vec![],
        started_at: datetime!(2026-03-02 08:30 UTC),
    };
    let call = interactions.create(call).await?;
    let call = interactions.end(call.id, datetime!(2026-03-02 08:45 UTC)).await?;
    println!("call      {} with company {:?}, {} s", call.subject, call.company_id, call.duration_sec.unwrap_or(0));

    let events: Vec<String> = store.events().into_iter().map(|e| e.name).collect();
    println!("events    {}", events.join(", "));
    Ok(())
}
