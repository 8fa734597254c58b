//! The contract suite of [`OrderRepository`] (feature `contract`), and of the ports to the other
//! contexts (`references`, re-exported here): one async function per promise of the port, each
//! panicking (plain `assert!`) when an adapter breaks it. Every adapter runs it: the in-memory one
//! in `crates/order-domain/tests/memory_contract.rs`, the PostgreSQL one in
//! `tests/tests/api/order_contract.rs`; an adapter of another service calls [`run_all`] from a test
//! of its own.
//!
//! The suite makes its own orders through the port, for the caller's `customer_id` and with lines of
//! the caller's `product_id` (an adapter with foreign keys needs both to exist). It never confirms an
//! order, so a running warehouse subscriber has nothing to reply to and cannot move the orders under
//! it. Orders are made in years no other data uses (2031, 2032, 2041) and found again by customer and
//! creation day, so other orders in the same store do not disturb it; the numbering checks hold with
//! other writers too (strictly increasing, never consecutive). Timestamps are whole seconds, which
//! every store keeps exactly.

mod references;

pub use references::{
    catalog_finds_products_with_what_a_line_copies, directory_finds_live_customers_and_companies,
    register_knows_active_currencies,
};

use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use shared_kernel::{CurrencyCode, PageRequest};
use time::macros::{date, datetime};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::change::OrderChange;
use crate::line::NewLine;
use crate::number::OrderNumber;
use crate::order::{NewOrder, Order, OrderDraft};
use crate::repository::{OrderFilter, OrderRepository, ReplyInbox, RepoError};
use crate::status::OrderStatus;
use crate::status::ReservationStatus;
use event_contracts::warehouse::{StockReserved, WarehouseReply};

fn usd() -> CurrencyCode {
    CurrencyCode::parse("USD").expect("USD is an ISO 4217 code")
}

fn draft(customer_id: Uuid, now: OffsetDateTime) -> OrderDraft {
    let input = NewOrder { customer_id, company_id: None, currency: usd(), tax: 100, discount: 30, notes: None };
    OrderDraft::new(input, now).expect("a valid draft")
}

fn line(product_id: Uuid, quantity: i64, unit_price: i64) -> NewLine {
    NewLine {
        product_id,
        quantity,
        unit_price,
        currency: usd(),
        description: Some("Contract widget".into()),
        sku: Some("CONTRACT-1".into()),
    }
}

async fn create(repo: &dyn OrderRepository, customer_id: Uuid, now: OffsetDateTime) -> Order {
    repo.create(draft(customer_id, now)).await.expect("create")
}

async fn saved(repo: &dyn OrderRepository, change: OrderChange) -> Order {
    repo.save(&change).await.expect("save");
    change.order
}

/// Polls both futures until both are ready, on the caller's executor (no runtime of its own).
async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut out_a, mut out_b) = (None, None);
    std::future::poll_fn(move |cx| {
        if out_a.is_none() {
            if let Poll::Ready(value) = a.as_mut().poll(cx) {
                out_a = Some(value);
            }
        }
        if out_b.is_none() {
            if let Poll::Ready(value) = b.as_mut().poll(cx) {
                out_b = Some(value);
            }
        }
        match (out_a.take(), out_b.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (a, b) => {
                (out_a, out_b) = (a, b);
                Poll::Pending
            }
        }
    })
    .await
}

/// `create` numbers orders `ORD-<year>-<6 digits>` from one counter per year (the year of
/// `created_at`), each number once and increasing; the stored order is pending, version 1, with the
/// draft's id, and reads back equal.
pub async fn create_numbers_per_year(repo: &dyn OrderRepository, customer_id: Uuid) {
    let mut last: Vec<(i32, u32)> = Vec::new();
    for (index, now) in [
        datetime!(2031-02-01 08:00 UTC),
        datetime!(2032-02-01 08:00 UTC),
        datetime!(2031-02-01 09:00 UTC),
        datetime!(2032-02-01 09:00 UTC),
        datetime!(2031-12-31 23:59:59 UTC),
    ]
    .into_iter()
    .enumerate()
    {
        let draft = draft(customer_id, now);
        let id = draft.id();
        let order = repo.create(draft).await.expect("create");
        assert_eq!((order.id, order.status, order.version), (id, OrderStatus::Pending, 1), "order {index}");
        assert_eq!((order.created_at, order.updated_at), (now, now));
        let number = OrderNumber::parse(&order.order_number).expect("ORD-<year>-<6 digits>");
        assert_eq!(number.year(), now.year(), "the number's year is the year of creation");
        assert!(number.sequence() >= 1);
        if let Some((_, previous)) = last.iter().find(|(year, _)| *year == number.year()) {
            assert!(number.sequence() > *previous, "{} after sequence {previous}", order.order_number);
        }
        last.retain(|(year, _)| *year != number.year());
        last.push((number.year(), number.sequence()));
        assert_eq!(repo.get(id).await.expect("get"), order, "reads back as created");
    }
}

/// `get` and `get_by_number` return the order with its lines (by `created_at`, then `id`) and its
/// totals; an unknown id or number is `NotFound`.
pub async fn get_returns_order_with_lines(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let now = datetime!(2031-03-01 10:00 UTC);
    let draft = draft(customer_id, now)
        .with_lines(vec![line(product_id, 2, 500), line(product_id, 1, 250)])
        .expect("valid lines");
    let created = repo.create(draft).await.expect("create with lines");
    assert_eq!(created.lines.len(), 2);
    assert_eq!((created.subtotal, created.total), (1_250, 1_320));
    let later =
        saved(repo, created.add_line(line(product_id, 3, 100), now + time::Duration::hours(1)).expect("add")).await;

    let read = repo.get(created.id).await.expect("get");
    assert_eq!(read, later);
    let order: Vec<(OffsetDateTime, Uuid)> = read.lines.iter().map(|l| (l.created_at, l.id)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "lines by created_at, then id");
    let number = OrderNumber::parse(&read.order_number).expect("a number");
    assert_eq!(repo.get_by_number(&number).await.expect("get_by_number"), read);

    assert_eq!(repo.get(Uuid::now_v7()).await, Err(RepoError::NotFound));
    let unused = OrderNumber::new(2031, 999_999).expect("in range");
    assert_eq!(repo.get_by_number(&unused).await, Err(RepoError::NotFound));
}

/// `save` writes the header and the one line an operation touched (added, quantity changed,
/// removed); what is read back is the change's order.
pub async fn save_writes_changes(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let now = datetime!(2031-04-01 10:00 UTC);
    let order = create(repo, customer_id, now).await;
    let order = saved(repo, order.add_line(line(product_id, 2, 500), now).expect("add")).await;
    assert_eq!(repo.get(order.id).await.expect("get"), order);
    let order = saved(repo, order.add_line(line(product_id, 1, 50), now).expect("add")).await;
    let first = order.lines[0].id;
    let order =
        saved(repo, order.change_line_quantity(first, 5, now + time::Duration::minutes(1)).expect("quantity")).await;
    assert_eq!(repo.get(order.id).await.expect("get"), order);
    assert_eq!((order.subtotal, order.version), (2_550, 4));
    let second = order.lines[1].id;
    let order = saved(repo, order.remove_line(second, now + time::Duration::minutes(2)).expect("remove")).await;
    let read = repo.get(order.id).await.expect("get");
    assert_eq!(read, order);
    assert_eq!(read.lines.len(), 1);
    let order = saved(repo, read.cancel(now + time::Duration::minutes(3)).expect("cancel")).await;
    let read = repo.get(order.id).await.expect("get");
    assert_eq!((read.status, read.cancelled_at, read.version), (OrderStatus::Cancelled, order.cancelled_at, 6));
    assert_eq!(read, order);
}

/// `save` is a compare-and-set: a change computed from an older version, or from another status,
/// is `Stale` and writes nothing; the winner's state stays.
pub async fn save_of_stale_change_is_refused(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let now = datetime!(2031-05-01 10:00 UTC);
    let order = create(repo, customer_id, now).await;
    let first = order.add_line(line(product_id, 1, 100), now).expect("add");
    let second = order.add_line(line(product_id, 7, 100), now).expect("add");
    repo.save(&first).await.expect("the first writer wins");
    assert_eq!(repo.save(&second).await, Err(RepoError::Stale), "computed from version 1");
    assert_eq!(repo.get(order.id).await.expect("get"), first.order, "the loser wrote nothing");
    assert_eq!(repo.save(&first).await, Err(RepoError::Stale), "the same change twice");

    let current = first.order;
    let mut wrong_status = current.cancel(now).expect("cancel");
    wrong_status.expected_status = OrderStatus::Confirmed;
    assert_eq!(repo.save(&wrong_status).await, Err(RepoError::Stale), "version matches, status does not");
    assert_eq!(repo.get(order.id).await.expect("get"), current);
}

/// Two saves computed from the same version, run concurrently: exactly one is written, the other is
/// `Stale`.
pub async fn concurrent_saves_one_wins(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let now = datetime!(2031-06-01 10:00 UTC);
    let order = create(repo, customer_id, now).await;
    let add = order.add_line(line(product_id, 1, 100), now).expect("add");
    let cancel = order.cancel(now).expect("cancel");
    let (added, cancelled) = join(repo.save(&add), repo.save(&cancel)).await;
    let read = repo.get(order.id).await.expect("get");
    match (added, cancelled) {
        (Ok(()), Err(RepoError::Stale)) => assert_eq!(read, add.order),
        (Err(RepoError::Stale), Ok(())) => assert_eq!(read, cancel.order),
        other => panic!("exactly one save wins, the other is Stale: {other:?}"),
    }
    assert_eq!(read.version, 2);
}

/// `save` of an order that is not stored, or was deleted, is `NotFound`.
pub async fn save_of_missing_order_is_not_found(repo: &dyn OrderRepository, customer_id: Uuid) {
    let now = datetime!(2031-07-01 10:00 UTC);
    let never_stored = draft(customer_id, now);
    let number = OrderNumber::new(never_stored.year(), 999_998).expect("in range");
    let (ghost, _) = never_stored.into_order(number).expect("same year");
    assert_eq!(repo.save(&ghost.cancel(now).expect("cancel")).await, Err(RepoError::NotFound));

    let order = create(repo, customer_id, now).await;
    repo.delete(&order.delete().expect("pending"), now).await.expect("delete");
    assert_eq!(repo.save(&order.cancel(now).expect("cancel")).await, Err(RepoError::NotFound));
}

/// `delete` is a soft, compare-and-set delete: `Stale` when the order moved since the permission,
/// then the order is gone from `get`, `get_by_number` and `list`, and a second delete is `NotFound`.
pub async fn delete_is_soft_and_conditional(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let now = datetime!(2031-08-01 10:00 UTC);
    let order = create(repo, customer_id, now).await;
    let permission = order.delete().expect("pending");
    let order = saved(repo, order.add_line(line(product_id, 1, 100), now).expect("add")).await;
    assert_eq!(repo.delete(&permission, now).await, Err(RepoError::Stale), "given for version 1");
    assert_eq!(repo.get(order.id).await.expect("still there"), order);

    let order = saved(repo, order.cancel(now).expect("cancel")).await;
    let mut wrong_status = order.delete().expect("cancelled");
    wrong_status.expected_status = OrderStatus::Pending;
    assert_eq!(repo.delete(&wrong_status, now).await, Err(RepoError::Stale), "status differs");

    let permission = order.delete().expect("cancelled");
    repo.delete(&permission, now + time::Duration::minutes(1)).await.expect("delete");
    assert_eq!(repo.get(order.id).await, Err(RepoError::NotFound));
    let number = OrderNumber::parse(&order.order_number).expect("a number");
    assert_eq!(repo.get_by_number(&number).await, Err(RepoError::NotFound));
    let day = OrderFilter {
        customer_id: Some(customer_id),
        date_from: Some(date!(2031 - 08 - 01)),
        date_to: Some(date!(2031 - 08 - 01)),
        ..OrderFilter::default()
    };
    let listed = repo.list(&day, PageRequest::default()).await.expect("list");
    assert!(listed.items.iter().all(|o| o.id != order.id), "a deleted order is not listed");
    assert_eq!(listed.total, 0);
    assert_eq!(repo.delete(&permission, now).await, Err(RepoError::NotFound), "already deleted");
}

/// `list` filters by status, customer and creation day (UTC, both ends inclusive), sorts newest first
/// (`created_at` desc, then `id` desc), pages, counts every match in `total`, and returns lines.
pub async fn list_filters_sorts_and_pages(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    let day = |d: u8, h: u8| {
        date!(2041 - 05 - 01).replace_day(d).expect("a day of May").with_hms(h, 0, 0).expect("an hour").assume_utc()
    };
    // Two orders at the same instant (sorted by id), and the last second of a day.
    let instants = [day(1, 9), day(2, 9), day(2, 9), day(2, 23), day(3, 0), day(4, 9)];
    let mut created = Vec::new();
    for now in instants {
        created.push(create(repo, customer_id, now).await);
    }
    let last_second = datetime!(2041-05-02 23:59:59 UTC);
    created.push(create(repo, customer_id, last_second).await);
    let with_line = created.remove(1);
    created.insert(1, saved(repo, with_line.add_line(line(product_id, 2, 300), day(2, 9)).expect("add")).await);
    let cancelled = created.remove(0);
    created.insert(0, saved(repo, cancelled.cancel(day(5, 9)).expect("cancel")).await);

    let mut newest_first = created.clone();
    newest_first.sort_by_key(|order| std::cmp::Reverse((order.created_at, order.id)));
    let ids = |orders: &[Order]| orders.iter().map(|o| o.id).collect::<Vec<_>>();
    let filter = |from, to| OrderFilter {
        customer_id: Some(customer_id),
        date_from: Some(from),
        date_to: Some(to),
        ..OrderFilter::default()
    };

    let all = repo.list(&filter(date!(2041 - 05 - 01), date!(2041 - 05 - 04)), PageRequest::default()).await;
    let all = all.expect("list");
    assert_eq!((all.total, all.total_exact, all.page, all.page_size), (7, true, 1, 20));
    assert_eq!(ids(&all.items), ids(&newest_first), "newest first, then id desc");
    assert_eq!(all.items, newest_first, "whole orders, lines included");

    let page = PageRequest::new(Some(2), Some(3)).expect("a page");
    let second = repo.list(&filter(date!(2041 - 05 - 01), date!(2041 - 05 - 04)), page).await.expect("list");
    assert_eq!((second.total, second.page, second.page_size), (7, 2, 3));
    assert_eq!(ids(&second.items), ids(&newest_first[3..6]));
    let past_end = PageRequest::new(Some(4), Some(3)).expect("a page");
    let empty = repo.list(&filter(date!(2041 - 05 - 01), date!(2041 - 05 - 04)), past_end).await.expect("list");
    assert_eq!((empty.items.len(), empty.total), (0, 7));

    let one_day = repo.list(&filter(date!(2041 - 05 - 02), date!(2041 - 05 - 02)), PageRequest::default()).await;
    let one_day = one_day.expect("list");
    let expected: Vec<Order> = newest_first.iter().filter(|o| o.created_at.day() == 2).cloned().collect();
    assert_eq!(expected.len(), 4, "fixture: four orders on May 2, the last at 23:59:59");
    assert_eq!(ids(&one_day.items), ids(&expected), "date_to is inclusive up to the end of the day");

    let from_only = OrderFilter { date_to: None, ..filter(date!(2041 - 05 - 03), date!(2041 - 05 - 03)) };
    let later = repo.list(&from_only, PageRequest::default()).await.expect("list");
    assert_eq!(ids(&later.items), ids(&newest_first[..2]), "date_from alone");

    let cancelled_only =
        OrderFilter { status: Some(OrderStatus::Cancelled), ..filter(date!(2041 - 05 - 01), date!(2041 - 05 - 04)) };
    let only = repo.list(&cancelled_only, PageRequest::default()).await.expect("list");
    assert_eq!((ids(&only.items), only.total), (vec![created[0].id], 1));

    let stranger = OrderFilter { customer_id: Some(Uuid::now_v7()), ..OrderFilter::default() };
    let none = repo.list(&stranger, PageRequest::default()).await.expect("list");
    assert_eq!((none.items.len(), none.total), (0, 0), "another customer's list");
}

/// The [`ReplyInbox`]: a delivery is taken once (a second delivery of the same event changes
/// nothing), a reply the order no longer awaits changes nothing, and a reply for an order that is
/// gone is taken and changes nothing. `inbox` keeps the orders `repo` keeps.
pub async fn reply_inbox_takes_each_delivery_once(
    repo: &dyn OrderRepository,
    inbox: &dyn ReplyInbox,
    customer_id: Uuid,
    product_id: Uuid,
) {
    let now = datetime!(2031-09-01 10:00 UTC);
    let order = create(repo, customer_id, now).await;
    let order = saved(repo, order.add_line(line(product_id, 2, 500), now).expect("add")).await;
    let order = saved(repo, order.confirm(now).expect("confirm")).await;
    assert_eq!(order.reservation_status, ReservationStatus::Pending);
    let reserved = || WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
    let (delivery, later) = (Uuid::now_v7(), now + time::Duration::minutes(1));

    let folded = inbox.settle_reply(delivery, reserved(), later, Order::fold_reply).await.expect("settle");
    let folded = folded.expect("the order awaited the reply");
    assert_eq!(folded.reservation_status, ReservationStatus::Reserved);
    assert_eq!(repo.get(order.id).await.expect("get"), folded, "what was saved is what was answered");

    assert_eq!(inbox.settle_reply(delivery, reserved(), later, Order::fold_reply).await, Ok(None), "taken once");
    let again = Uuid::now_v7();
    assert_eq!(
        inbox.settle_reply(again, reserved(), later, Order::fold_reply).await,
        Ok(None),
        "another delivery of a reply the order no longer awaits"
    );
    assert_eq!(repo.get(order.id).await.expect("get"), folded, "nothing changed");

    let gone = WarehouseReply::Reserved(StockReserved { order_id: Uuid::now_v7(), allocations: Vec::new() });
    assert_eq!(inbox.settle_reply(Uuid::now_v7(), gone, later, Order::fold_reply).await, Ok(None), "no such order");
}

/// Every promise above, in turn, on one repository.
pub async fn run_all(repo: &dyn OrderRepository, customer_id: Uuid, product_id: Uuid) {
    create_numbers_per_year(repo, customer_id).await;
    get_returns_order_with_lines(repo, customer_id, product_id).await;
    save_writes_changes(repo, customer_id, product_id).await;
    save_of_stale_change_is_refused(repo, customer_id, product_id).await;
    concurrent_saves_one_wins(repo, customer_id, product_id).await;
    save_of_missing_order_is_not_found(repo, customer_id).await;
    delete_is_soft_and_conditional(repo, customer_id, product_id).await;
    list_filters_sorts_and_pages(repo, customer_id, product_id).await;
}
