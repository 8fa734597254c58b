//! A movement posted by hand (`POST /stock-movements`): which types may be posted, what each needs,
//! and which operation it is.

use uuid::Uuid;

use super::{ReceiptRequest, StockOperations};
use crate::application::refused;
use crate::error::WarehouseError;
use crate::movement::MovementType;
use crate::repository::RepoError;

/// A movement as the client posts it; which fields count depends on the type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MovementRequest {
    /// `Receipt`, `Adjustment`, `Damage` or `Return` (the other types have their own operations).
    pub movement_type: String,
    /// Units: required for a Receipt, a Damage and a Return.
    pub quantity: Option<i64>,
    /// The correction: required for an Adjustment.
    pub quantity_delta: Option<i64>,
    /// A Receipt's cost per unit in cents.
    pub unit_cost: Option<i64>,
    /// A Receipt's cost currency, as sent (see [`ReceiptRequest::currency`]).
    pub currency: Option<String>,
    /// A Receipt's reference type, as sent.
    pub reference_type: Option<String>,
    /// A Receipt's document; a Return's order when `order_id` is not sent.
    pub reference_id: Option<Uuid>,
    /// A Return's order.
    pub order_id: Option<Uuid>,
    /// Why: required for an Adjustment and a Damage.
    pub reason: Option<String>,
}

/// `value`, or `VALIDATION_ERROR` "is required" on `field`.
fn required<T>(value: Option<T>, field: &'static str) -> Result<T, RepoError> {
    value.ok_or_else(|| refused(WarehouseError::Validation { field, message: "is required" }))
}

impl StockOperations {
    /// Performs the operation a hand-posted movement names on record `id`. Refused, in this order:
    /// an unknown type; a type that is not posted by hand (`VALIDATION_ERROR` on `type`); a field
    /// the type requires (`VALIDATION_ERROR` "is required": a Receipt's, a Damage's and a Return's
    /// `quantity`, an Adjustment's `quantity_delta` then `reason`, a Damage's `reason`); then as the
    /// operation ([`StockOperations::receive`], `adjust`, `damage`, `return_stock`). A Return's order
    /// is `order_id`, else `reference_id`.
    #[tracing::instrument(skip_all, fields(inventory_id = %id, movement_type = %request.movement_type))]
    pub async fn post(&self, id: Uuid, request: MovementRequest, by: Uuid) -> Result<super::Stocked, RepoError> {
        let kind = MovementType::parse(&request.movement_type).map_err(refused)?;
        if !kind.can_be_posted() {
            return Err(refused(WarehouseError::Validation {
                field: "type",
                message: "must be Receipt, Adjustment, Damage or Return (the others have their own endpoints)",
            }));
        }
        let MovementRequest {
            quantity,
            quantity_delta,
            unit_cost,
            currency,
            reference_type,
            reference_id,
            order_id,
            reason,
            ..
        } = request;
        match kind {
            MovementType::Receipt => {
                let quantity = required(quantity, "quantity")?;
                let receipt = ReceiptRequest { quantity, unit_cost, currency, reference_type, reference_id, reason };
                self.receive(id, receipt, by).await
            }
            MovementType::Adjustment => {
                let delta = required(quantity_delta, "quantity_delta")?;
                let reason = required(reason, "reason")?;
                self.adjust(id, delta, &reason, by).await
            }
            MovementType::Damage => {
                let quantity = required(quantity, "quantity")?;
                let reason = required(reason, "reason")?;
                self.damage(id, quantity, &reason, by).await
            }
            _ => {
                let quantity = required(quantity, "quantity")?;
                self.return_stock(id, quantity, order_id.or(reference_id), reason.as_deref(), by).await
            }
        }
    }
}
