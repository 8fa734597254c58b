//! Business errors of the warehouse context, each with its stable wire code.
//!
//! | variant | code | HTTP |
//! |---|---|---|
//! | `InsufficientStock` | `INSUFFICIENT_STOCK` | 409 — available stock is short, or a move would push on hand below reserved |
//! | `ReservationExceeded` | `RESERVATION_EXCEEDED` | 409 — release/commit of more than is reserved |
//! | `InvalidQuantity`, `QuantityOutOfRange` | `INVALID_QUANTITY` | 400 — not > 0, or beyond the integer range |
//! | `Validation` | `VALIDATION_ERROR` | 400 — names the field |
//! | `InvalidTransition` | `INVALID_STATUS_TRANSITION` | 409 — e.g. discontinuing a discontinued product, shipping a received transfer |
//! | `NotFound` | `NOT_FOUND` | 404 |
//! | `StockReserved` | `STOCK_RESERVED` | 409 — deleting an inventory record that holds reservations |
//! | `LocationHasStock` | `LOCATION_HAS_STOCK` | 409 — deleting a location with stock on hand |
//! | `PoNotEditable` | `PO_NOT_EDITABLE` | 409 — a purchase order's lines change only in `draft` |
//! | `PoEmpty` | `PO_EMPTY` | 409 — submitting a purchase order without lines |
//! | `OverReceipt` | `OVER_RECEIPT` | 409 — receiving more than a line still expects (nothing is received) |
//! | `SupplierHasOpenOrders` | `SUPPLIER_HAS_OPEN_ORDERS` | 409 — deleting a supplier with open purchase orders |
//! | `InvalidEmail` | `INVALID_EMAIL` | 400 — a supplier's email is not an address |

use shared_kernel::error::{Classified, ErrorKind};
use uuid::Uuid;

/// Why a warehouse operation was refused; [`Classified::code`] gives the wire code (table above).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WarehouseError {
    /// `INSUFFICIENT_STOCK` 409: a reservation asks for more than is available, or a move would take
    /// on hand below what is reserved. Nothing was changed.
    #[error("insufficient stock: requested {requested}, available {available}")]
    InsufficientStock {
        /// Units the operation asked for.
        requested: i64,
        /// Units available (on hand − reserved) on the record when it was refused.
        available: i64,
    },
    /// `RESERVATION_EXCEEDED` 409: releasing or committing more than the record has reserved.
    #[error("cannot take {requested} from a reservation of {reserved}")]
    ReservationExceeded {
        /// Units the release or commit asked for.
        requested: i64,
        /// Units reserved on the record.
        reserved: i64,
    },
    /// `INVALID_QUANTITY` 400: a quantity must be > 0 (an adjustment ≠ 0).
    #[error("quantity must be greater than 0")]
    InvalidQuantity,
    /// `INVALID_QUANTITY` 400: a quantity or its result does not fit `i64`.
    #[error("quantity is out of range")]
    QuantityOutOfRange,
    /// `VALIDATION_ERROR` 400 on one request field.
    #[error("{field}: {message}")]
    Validation {
        /// The request field at fault (`reason`, `sku`, `min_stock`, `to_location_id`, ...).
        field: &'static str,
        /// What is wrong with it, in words for people.
        message: &'static str,
    },
    /// `INVALID_STATUS_TRANSITION` 409: a product or location is already in the state asked for, or a
    /// purchase order or transfer cannot make that move from its status.
    #[error("cannot {action} a {entity} that is {from}")]
    InvalidTransition {
        /// `product`, `location`, `purchase order` or `transfer`.
        entity: &'static str,
        /// Its current state (`active`, `discontinued`, `inactive`, `draft`, `in_transit`, ...).
        from: &'static str,
        /// The refused trigger (`activate`, `deactivate`, `discontinue`, `submit`, `receive`,
        /// `cancel`, `close`, `ship`).
        action: &'static str,
    },
    /// `NOT_FOUND` 404: the named thing does not exist (or was deleted).
    #[error("{entity} not found")]
    NotFound {
        /// What was looked for, in words (`inventory record`, `product`, ...).
        entity: &'static str,
    },
    /// `STOCK_RESERVED` 409: an inventory record holding reservations cannot be deleted.
    #[error("the inventory record holds reserved stock")]
    StockReserved,
    /// `LOCATION_HAS_STOCK` 409: a location where any record has stock on hand cannot be deleted.
    #[error("the location holds stock")]
    LocationHasStock,
    /// `PO_NOT_EDITABLE` 409: a purchase order's lines are added, changed and removed only in `draft`.
    #[error("purchase order lines can only change in draft (it is {status})")]
    PoNotEditable {
        /// The purchase order's status (anything but `draft`).
        status: &'static str,
    },
    /// `PO_EMPTY` 409: a purchase order needs at least one line to be submitted.
    #[error("a purchase order needs at least one line to be submitted")]
    PoEmpty,
    /// `OVER_RECEIPT` 409: a receipt asks for more of a line than is still outstanding
    /// (ordered − received). Nothing of the receipt is received.
    #[error("line {line_id}: cannot receive {requested}, {outstanding} outstanding")]
    OverReceipt {
        /// The first line (in the order asked) that asked for too much.
        line_id: Uuid,
        /// Units the receipt asked for on that line.
        requested: i64,
        /// Units of the line still outstanding.
        outstanding: i64,
    },
    /// `SUPPLIER_HAS_OPEN_ORDERS` 409: a supplier with purchase orders in `draft`, `ordered` or
    /// `partially_received` cannot be deleted.
    #[error("the supplier has open purchase orders")]
    SupplierHasOpenOrders,
    /// `INVALID_EMAIL` 400 on `email`: not an address under the shared rule (`shared_kernel::Email`).
    #[error("email is not a valid address")]
    InvalidEmail,
    /// `DOCUMENT_NUMBERS_EXHAUSTED` 409: the year's numbers of a kind of document (six digits, so
    /// [`crate::numbers::MAX_SEQUENCE`]) are all taken, or would be by this creation; nothing was
    /// created. Not the client's mistake, and no retry helps before the year changes.
    #[error("the {kind} numbers of {year} are all taken")]
    DocumentNumbersExhausted {
        /// `purchase order` or `transfer`.
        kind: &'static str,
        /// The year of creation.
        year: i32,
    },
}

impl From<shared_kernel::InvalidEmail> for WarehouseError {
    fn from(_: shared_kernel::InvalidEmail) -> Self {
        Self::InvalidEmail
    }
}

impl WarehouseError {
    /// The field a 400 is about, for the `details` map of the error envelope; `None` for 404 and 409.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::InvalidQuantity | Self::QuantityOutOfRange => Some("quantity"),
            Self::Validation { field, .. } => Some(field),
            Self::InvalidEmail => Some("email"),
            _ => None,
        }
    }
}

impl Classified for WarehouseError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidQuantity | Self::QuantityOutOfRange | Self::Validation { .. } | Self::InvalidEmail => {
                ErrorKind::Validation
            }
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::InsufficientStock { .. }
            | Self::ReservationExceeded { .. }
            | Self::InvalidTransition { .. }
            | Self::StockReserved
            | Self::LocationHasStock
            | Self::PoNotEditable { .. }
            | Self::PoEmpty
            | Self::OverReceipt { .. }
            | Self::SupplierHasOpenOrders
            | Self::DocumentNumbersExhausted { .. } => ErrorKind::Conflict,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::InsufficientStock { .. } => "INSUFFICIENT_STOCK",
            Self::ReservationExceeded { .. } => "RESERVATION_EXCEEDED",
            Self::InvalidQuantity | Self::QuantityOutOfRange => "INVALID_QUANTITY",
            Self::Validation { .. } => "VALIDATION_ERROR",
            Self::InvalidTransition { .. } => "INVALID_STATUS_TRANSITION",
            Self::NotFound { .. } => "NOT_FOUND",
            Self::StockReserved => "STOCK_RESERVED",
            Self::LocationHasStock => "LOCATION_HAS_STOCK",
            Self::PoNotEditable { .. } => "PO_NOT_EDITABLE",
            Self::PoEmpty => "PO_EMPTY",
            Self::OverReceipt { .. } => "OVER_RECEIPT",
            Self::SupplierHasOpenOrders => "SUPPLIER_HAS_OPEN_ORDERS",
            Self::InvalidEmail => "INVALID_EMAIL",
            Self::DocumentNumbersExhausted { .. } => "DOCUMENT_NUMBERS_EXHAUSTED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_kinds() {
        let cases = [
            (
                WarehouseError::InsufficientStock { requested: 2, available: 1 },
                "INSUFFICIENT_STOCK",
                ErrorKind::Conflict,
            ),
            (
                WarehouseError::ReservationExceeded { requested: 2, reserved: 1 },
                "RESERVATION_EXCEEDED",
                ErrorKind::Conflict,
            ),
            (WarehouseError::InvalidQuantity, "INVALID_QUANTITY", ErrorKind::Validation),
            (WarehouseError::QuantityOutOfRange, "INVALID_QUANTITY", ErrorKind::Validation),
            (WarehouseError::Validation { field: "sku", message: "x" }, "VALIDATION_ERROR", ErrorKind::Validation),
            (
                WarehouseError::InvalidTransition { entity: "product", from: "active", action: "activate" },
                "INVALID_STATUS_TRANSITION",
                ErrorKind::Conflict,
            ),
            (WarehouseError::NotFound { entity: "product" }, "NOT_FOUND", ErrorKind::NotFound),
            (WarehouseError::StockReserved, "STOCK_RESERVED", ErrorKind::Conflict),
            (WarehouseError::LocationHasStock, "LOCATION_HAS_STOCK", ErrorKind::Conflict),
            (WarehouseError::PoNotEditable { status: "ordered" }, "PO_NOT_EDITABLE", ErrorKind::Conflict),
            (WarehouseError::PoEmpty, "PO_EMPTY", ErrorKind::Conflict),
            (
                WarehouseError::OverReceipt { line_id: Uuid::nil(), requested: 3, outstanding: 2 },
                "OVER_RECEIPT",
                ErrorKind::Conflict,
            ),
            (WarehouseError::SupplierHasOpenOrders, "SUPPLIER_HAS_OPEN_ORDERS", ErrorKind::Conflict),
            (WarehouseError::InvalidEmail, "INVALID_EMAIL", ErrorKind::Validation),
            (
                WarehouseError::DocumentNumbersExhausted { kind: "transfer", year: 2026 },
                "DOCUMENT_NUMBERS_EXHAUSTED",
                ErrorKind::Conflict,
            ),
        ];
        for (error, code, kind) in cases {
            assert_eq!((error.code(), error.kind()), (code, kind), "{error}");
        }
        let transition = WarehouseError::InvalidTransition { entity: "product", from: "active", action: "activate" };
        assert_eq!(transition.to_string(), "cannot activate a product that is active");
        assert_eq!(WarehouseError::from(shared_kernel::InvalidEmail).field(), Some("email"));
        assert_eq!(WarehouseError::PoEmpty.field(), None);
    }
}
