//! The promises of [`InventoryRepository`] and [`StockMovementRepository`].

use shared_kernel::{PageRequest, StorageError};
use uuid::Uuid;

use super::{at, new_location, record_at, stamp, stocked, Ports};
use crate::error::WarehouseError;
use crate::inventory::{Inventory, NewInventory};
use crate::movement::MovementType;
use crate::quantities::{Quantities, Thresholds};
use crate::repository::{MovementFilter, RecentLimit, RepoError};

/// One live record per product and location (`Conflict { field: "location_id" }`); `find` finds it,
/// `get` reads it back, availability sums the product's records.
pub async fn inventory_is_one_record_per_product_and_location(ports: Ports<'_>) {
    let (record, product_id) = stocked(ports, 0).await;
    assert_eq!(ports.inventory.get(record.id).await.as_ref(), Ok(&record));
    assert_eq!(ports.inventory.find(product_id, record.location_id).await, Ok(Some(record.clone())));
    assert_eq!(ports.inventory.find(product_id, Uuid::nil()).await, Ok(None));
    let input = NewInventory {
        product_id,
        location_id: record.location_id,
        quantity_on_hand: Some(2),
        thresholds: Thresholds::default(),
    };
    let (twin, receipt) = Inventory::create(input, stamp(2)).expect("valid");
    assert_eq!(
        ports.inventory.create(&twin, receipt.as_ref()).await,
        Err(RepoError::Storage(StorageError::Conflict { field: "location_id" }))
    );
    let elsewhere = new_location(ports.locations).await;
    let input = NewInventory { location_id: elsewhere.id, ..input };
    let (second, receipt) = Inventory::create(input, stamp(2)).expect("valid");
    ports.inventory.create(&second, receipt.as_ref()).await.expect("another location");
    let availability = ports.inventory.availability(product_id).await.expect("sums");
    assert_eq!((availability.quantity_on_hand, availability.quantity_available), (2, 2));
}

/// `apply` writes over the quantities the change was computed from only (`Stale` otherwise, nothing
/// written), with its movement; a gone record is `NotFound`.
pub async fn quantity_changes_are_compare_and_set_with_their_movement(ports: Ports<'_>) {
    let (record, _) = stocked(ports, 10).await;
    let order = Uuid::from_u128(0xC0);
    let reserve = record.reserve(4, order, stamp(3)).expect("10 available");
    ports.inventory.apply(&reserve).await.expect("as read");
    let late = record.damage(1, "dropped", stamp(4)).expect("valid");
    assert_eq!(ports.inventory.apply(&late).await, Err(RepoError::Storage(StorageError::Stale)));
    let now = ports.inventory.get(record.id).await.expect("live");
    assert_eq!(now.quantities(), Quantities { on_hand: 10, reserved: 4, committed: 0 });
    assert_eq!(ports.movements.get(reserve.movement.id).await.as_ref(), Ok(&reserve.movement));
    assert_eq!(ports.movements.get(late.movement.id).await, Err(RepoError::Storage(StorageError::NotFound)));
    let release = now.release(4, order, stamp(5)).expect("reserved");
    ports.inventory.apply(&release).await.expect("as read");
    ports.inventory.delete(record.id, at(6)).await.expect("nothing reserved");
    let gone = release.inventory.receive(crate::operations::Receipt::of(1), stamp(7)).expect("valid");
    assert_eq!(ports.inventory.apply(&gone).await, Err(RepoError::Storage(StorageError::NotFound)));
}

/// A transfer changes both ends in one step and creates the destination record when it is new.
pub async fn transfers_move_stock_and_create_the_destination(ports: Ports<'_>) {
    let (source, product_id) = stocked(ports, 8).await;
    let there = new_location(ports.locations).await;
    let input =
        NewInventory { product_id, location_id: there.id, quantity_on_hand: None, thresholds: Thresholds::default() };
    let (empty, _) = Inventory::create(input, stamp(2)).expect("valid");
    let change = source.transfer(&empty, 3, stamp(3)).expect("8 on hand");
    ports.inventory.apply_transfer(&change).await.expect("transfer");
    let destination = ports.inventory.find(product_id, there.id).await.expect("read").expect("created");
    assert_eq!(destination.quantity_on_hand, 3);
    assert_eq!(ports.inventory.get(source.id).await.map(|r| r.quantity_on_hand), Ok(5));
    assert_eq!(ports.inventory.apply_transfer(&change).await, Err(RepoError::Storage(StorageError::Stale)));
}

/// A record holding reservations is not deleted (`STOCK_RESERVED`); a deleted one is invisible.
pub async fn inventory_delete_is_refused_while_reserved(ports: Ports<'_>) {
    let (record, _) = stocked(ports, 5).await;
    let reserve = record.reserve(2, Uuid::from_u128(0xC1), stamp(3)).expect("5 available");
    ports.inventory.apply(&reserve).await.expect("as read");
    assert_eq!(ports.inventory.delete(record.id, at(4)).await, Err(RepoError::Refused(WarehouseError::StockReserved)));
    let empty = record_at(ports, reserve.inventory.product_id, new_location(ports.locations).await.id, 0).await;
    ports.inventory.delete(empty.id, at(4)).await.expect("nothing reserved");
    assert_eq!(ports.inventory.get(empty.id).await, Err(RepoError::Storage(StorageError::NotFound)));
    assert_eq!(ports.inventory.delete(empty.id, at(5)).await, Err(RepoError::Storage(StorageError::NotFound)));
}

/// The ledger lists a record's movements newest first with their filters; `recent` is bounded.
pub async fn movements_are_listed_newest_first_with_their_filters(ports: Ports<'_>) {
    let (record, product_id) = stocked(ports, 6).await;
    let damage = record.damage(2, "dropped", stamp(9)).expect("valid");
    ports.inventory.apply(&damage).await.expect("as read");
    let filter = MovementFilter { inventory_id: Some(record.id), ..MovementFilter::default() };
    let page = ports.movements.list(&filter, PageRequest::new(None, None).expect("valid")).await.expect("list");
    let kinds: Vec<MovementType> = page.items.iter().map(|m| m.movement_type).collect();
    assert_eq!(kinds, [MovementType::Damage, MovementType::Receipt]);
    let damages = MovementFilter {
        product_id: Some(product_id),
        movement_type: Some(MovementType::Damage),
        ..MovementFilter::default()
    };
    let page = ports.movements.list(&damages, PageRequest::new(None, None).expect("valid")).await.expect("list");
    assert_eq!(page.items, vec![damage.movement]);
    let other_day = MovementFilter { date_from: Some(time::macros::date!(2031 - 05 - 02)), ..filter };
    let page = ports.movements.list(&other_day, PageRequest::new(None, None).expect("valid")).await.expect("list");
    assert_eq!(page.total, 0);
    let limit = RecentLimit::new(Some(1)).expect("valid");
    assert_eq!(ports.movements.recent(limit).await.map(|m| m.len()), Ok(1));
}
