//! The promises of [`OrderStockRepository`].

use shared_kernel::PageRequest;
use uuid::Uuid;

use super::{stamp, stocked, Ports};
use crate::movement::MovementType;
use crate::planning::ReservationLine;
use crate::repository::{MovementFilter, ReservationOutcome, SettleOutcome};

fn fresh_order() -> Uuid {
    shared_kernel::new_id()
}

/// A confirmation reserves every line or none, once; a fulfilment commits exactly what the order
/// holds; each step leaves its movements referencing the order.
pub async fn orders_are_reserved_all_or_nothing_and_settled(ports: Ports<'_>) {
    let (record, product_id) = stocked(ports, 5).await;
    let (order, short) = (fresh_order(), fresh_order());
    let line = |quantity| ReservationLine { line_id: shared_kernel::new_id(), product_id, quantity };

    let outcome = ports.order_stock.reserve_for_order(short, &[line(2), line(4)], stamp(3)).await.expect("ok");
    assert!(matches!(outcome, ReservationOutcome::Failed(ref s) if !s.is_empty()), "{outcome:?}");
    assert_eq!(ports.inventory.get(record.id).await.map(|r| r.quantity_reserved), Ok(0), "nothing taken");

    let outcome = ports.order_stock.reserve_for_order(order, &[line(3)], stamp(4)).await.expect("ok");
    assert!(matches!(outcome, ReservationOutcome::Reserved(ref a) if a.len() == 1), "{outcome:?}");
    let again = ports.order_stock.reserve_for_order(order, &[line(3)], stamp(5)).await.expect("ok");
    assert_eq!(again, ReservationOutcome::AlreadyHandled);
    assert_eq!(ports.inventory.get(record.id).await.map(|r| r.quantity_reserved), Ok(3));

    let settled = ports.order_stock.commit_for_order(order, stamp(6)).await.expect("ok");
    let SettleOutcome::Settled(settled) = settled else { panic!("settled: {settled:?}") };
    assert_eq!(settled.iter().map(|s| s.quantity).sum::<i64>(), 3);
    let now = ports.inventory.get(record.id).await.expect("live");
    assert_eq!((now.quantity_on_hand, now.quantity_reserved, now.quantity_committed), (2, 0, 3));
    let filter = MovementFilter { reference_id: Some(order), ..MovementFilter::default() };
    let page = ports.movements.list(&filter, PageRequest::new(None, None).expect("valid")).await.expect("list");
    let kinds: Vec<MovementType> = page.items.iter().map(|m| m.movement_type).collect();
    assert_eq!(kinds, [MovementType::Commit, MovementType::Reservation]);
}

/// A cancellation that overtakes its confirmation releases nothing and leaves the order released:
/// the late confirmation reserves nothing.
pub async fn a_release_before_its_confirmation_wins(ports: Ports<'_>) {
    let (record, product_id) = stocked(ports, 5).await;
    let order = fresh_order();
    let released = ports.order_stock.release_for_order(order, stamp(3)).await.expect("ok");
    assert_eq!(released, SettleOutcome::Settled(vec![]));
    let line = ReservationLine { line_id: shared_kernel::new_id(), product_id, quantity: 2 };
    let late = ports.order_stock.reserve_for_order(order, &[line], stamp(4)).await.expect("ok");
    assert_eq!(late, ReservationOutcome::AlreadyReleased);
    assert_eq!(ports.inventory.get(record.id).await.map(|r| r.quantity_reserved), Ok(0));
}
