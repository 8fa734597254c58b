//! The promises of [`TransferRepository`](crate::transfers::TransferRepository).

use shared_kernel::{PageRequest, StorageError};
use uuid::Uuid;

use super::{at, new_location, new_product, record_at, stamp, PurchasingPorts};
use crate::error::WarehouseError;
use crate::movement::MovementType;
use crate::repository::{MovementFilter, RepoError};
use crate::transfers::{NewTransfer, NewTransferLine, Transfer, TransferDraft, TransferFilter, TransferStatus};

async fn new_transfer(ports: PurchasingPorts<'_>, from: Uuid, to: Uuid, lines: &[(Uuid, i64)]) -> Transfer {
    let lines = lines.iter().map(|&(product_id, quantity)| NewTransferLine { product_id, quantity }).collect();
    let input = NewTransfer { from_location_id: from, to_location_id: to, lines, notes: None };
    let draft = TransferDraft::new(input, stamp(1)).expect("valid");
    ports.transfers.create(draft).await.expect("create")
}

/// Transfers are numbered uniquely and read back; shipping takes every line off the source or
/// nothing (`Refused(InsufficientStock)` when one is short or has no record there, the transfer
/// left as it was); a move is written over the version and status read only (`Stale`); receiving
/// makes the destination's records; in-transit stock counts as incoming; cancelling in transit puts
/// it back; every line writes one `Transfer` movement at each end it touches.
pub async fn transfers_ship_all_or_nothing_and_put_back_what_they_cancel(ports: PurchasingPorts<'_>) {
    let (from, to) = (new_location(ports.stock.locations).await, new_location(ports.stock.locations).await);
    let (a, b) = (new_product(ports.stock.products).await, new_product(ports.stock.products).await);
    record_at(ports.stock, a.id, from.id, 5).await;
    let short = new_transfer(ports, from.id, to.id, &[(a.id, 3), (b.id, 1)]).await;
    let next = new_transfer(ports, from.id, to.id, &[(a.id, 3)]).await;
    assert!(short.transfer_number < next.transfer_number, "unique and rising");
    assert_eq!(ports.transfers.get(next.id).await.as_ref(), Ok(&next));
    let filter = TransferFilter { from_location_id: Some(from.id), ..TransferFilter::default() };
    let page = PageRequest::new(None, None).expect("page");
    assert_eq!(ports.transfers.list(&filter, page).await.map(|p| p.total), Ok(2));

    let refused = ports.transfers.save(&short.ship(at(2)).expect("a draft"), None).await;
    assert!(matches!(refused, Err(RepoError::Refused(WarehouseError::InsufficientStock { .. }))), "{refused:?}");
    assert_eq!(ports.transfers.get(short.id).await.as_ref(), Ok(&short), "left as it was");
    let kept = ports.stock.inventory.find(a.id, from.id).await.expect("read").expect("live");
    assert_eq!(kept.quantity_on_hand, 5, "nothing taken");

    let ship = next.ship(at(3)).expect("a draft");
    ports.transfers.save(&ship, None).await.expect("as read");
    assert_eq!(ports.transfers.save(&ship, None).await, Err(RepoError::Storage(StorageError::Stale)));
    let taken = ports.stock.inventory.find(a.id, from.id).await.expect("read").expect("live");
    assert_eq!(taken.quantity_on_hand, 2);
    assert_eq!(ports.stock.inventory.availability(a.id).await.map(|v| v.quantity_incoming), Ok(3));
    let receive = ship.transfer.receive(at(4)).expect("in transit");
    ports.transfers.save(&receive, None).await.expect("as read");
    let made = ports.stock.inventory.find(a.id, to.id).await.expect("read").expect("made");
    assert_eq!(made.quantity_on_hand, 3);
    assert_eq!(ports.stock.inventory.availability(a.id).await.map(|v| v.quantity_incoming), Ok(0));
    let stored = ports.transfers.get(next.id).await.expect("read");
    assert_eq!((stored.status, stored.version), (TransferStatus::Received, 3));

    let back = new_transfer(ports, from.id, to.id, &[(a.id, 2)]).await;
    let ship = back.ship(at(5)).expect("a draft");
    ports.transfers.save(&ship, None).await.expect("as read");
    ports.transfers.save(&ship.transfer.cancel(at(6)).expect("in transit"), None).await.expect("as read");
    let restored = ports.stock.inventory.find(a.id, from.id).await.expect("read").expect("live");
    assert_eq!(restored.quantity_on_hand, 2, "put back");
    let filter = MovementFilter { reference_id: Some(back.id), ..MovementFilter::default() };
    let movements = ports.stock.movements.list(&filter, page).await.expect("list").items;
    assert_eq!(movements.len(), 2);
    assert!(movements.iter().all(|m| m.movement_type == MovementType::Transfer && m.location_id == from.id));
}
