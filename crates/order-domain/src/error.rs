//! Business errors of the order context, each with its stable wire code.
//!
//! One enum for the whole aggregate keeps the mapping to codes in one place; the HTTP adapter only
//! looks at [`Classified::kind`] and [`Classified::code`].

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::CurrencyCode;

use crate::status::{OrderStatus, ReservationStatus};

/// Why an order operation was refused; [`Classified::code`] gives the wire code, [`Classified::kind`]
/// the HTTP class (400 validation, 404 not found, 409 conflict).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// `INVALID_QUANTITY` 400: a line quantity must be a positive integer.
    #[error("quantity must be greater than 0")]
    InvalidQuantity,
    /// `INVALID_PRICE` 400: a unit price must be zero or more.
    #[error("unit price must be 0 or more")]
    InvalidPrice,
    /// `CURRENCY_MISMATCH` 400: a line is priced in another currency than its order.
    #[error("line currency {line} does not match the order currency {order}")]
    CurrencyMismatch {
        /// The currency the order is priced in.
        order: CurrencyCode,
        /// The other currency the line was given in.
        line: CurrencyCode,
    },
    /// `LINE_NOT_FOUND` 404: the order has no line with that id.
    #[error("order line not found")]
    LineNotFound,
    /// `ORDER_NOT_FOUND` 404: no such order, or it was deleted (raised by handlers when the
    /// repository finds nothing).
    #[error("order not found")]
    OrderNotFound,
    /// `ORDER_EMPTY` 409: confirming needs at least one line.
    #[error("an order needs at least one line to be confirmed")]
    OrderEmpty,
    /// `ORDER_NOT_EDITABLE` 409: lines change only while the order is pending.
    #[error("order lines can only change while the order is pending (it is {status})")]
    NotEditable {
        /// The order's current status (anything but pending).
        status: OrderStatus,
    },
    /// `ORDER_ALREADY_CANCELLED` 409: cancelling an order that is already cancelled.
    #[error("the order is already cancelled")]
    AlreadyCancelled,
    /// `INVALID_STATUS_TRANSITION` 409: any other disallowed move (including delete).
    #[error("cannot {action} an order that is {from}")]
    InvalidTransition {
        /// The order's current status.
        from: OrderStatus,
        /// The refused trigger: `confirm`, `process`, `fulfill`, `cancel` or `delete`.
        action: &'static str,
    },
    /// `STOCK_NOT_RESERVED` 409: fulfilling needs the warehouse to have reserved the stock.
    #[error("stock is not reserved for this order (reservation is {reservation})")]
    StockNotReserved {
        /// The order's reservation status (anything but reserved).
        reservation: ReservationStatus,
    },
    /// `VALIDATION_ERROR` 400 on one field; arithmetic overflow is reported this way too.
    #[error("{field}: {message}")]
    Validation {
        /// The request field at fault (`tax`, `discount`, `notes`, `order_number`, `subtotal`, ...).
        field: &'static str,
        /// What is wrong with it, in words for people.
        message: &'static str,
    },
}

impl OrderError {
    /// An amount or count that does not fit the integer range: a 400, never a panic or a wrap.
    pub(crate) fn out_of_range(field: &'static str) -> Self {
        Self::Validation { field, message: "amount is out of range" }
    }

    /// The field a validation failure is about, for the `details` map of the error envelope; `None`
    /// for the 404 and 409 errors.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::InvalidQuantity => Some("quantity"),
            Self::InvalidPrice => Some("unit_price"),
            Self::CurrencyMismatch { .. } => Some("currency"),
            Self::Validation { field, .. } => Some(field),
            _ => None,
        }
    }
}

impl Classified for OrderError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidQuantity | Self::InvalidPrice | Self::CurrencyMismatch { .. } | Self::Validation { .. } => {
                ErrorKind::Validation
            }
            Self::LineNotFound | Self::OrderNotFound => ErrorKind::NotFound,
            Self::OrderEmpty
            | Self::NotEditable { .. }
            | Self::AlreadyCancelled
            | Self::InvalidTransition { .. }
            | Self::StockNotReserved { .. } => ErrorKind::Conflict,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::InvalidQuantity => "INVALID_QUANTITY",
            Self::InvalidPrice => "INVALID_PRICE",
            Self::CurrencyMismatch { .. } => "CURRENCY_MISMATCH",
            Self::LineNotFound => "LINE_NOT_FOUND",
            Self::OrderNotFound => "ORDER_NOT_FOUND",
            Self::OrderEmpty => "ORDER_EMPTY",
            Self::NotEditable { .. } => "ORDER_NOT_EDITABLE",
            Self::AlreadyCancelled => "ORDER_ALREADY_CANCELLED",
            Self::InvalidTransition { .. } => "INVALID_STATUS_TRANSITION",
            Self::StockNotReserved { .. } => "STOCK_NOT_RESERVED",
            Self::Validation { .. } => "VALIDATION_ERROR",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_kinds() {
        let usd = CurrencyCode::parse("USD").expect("valid");
        let eur = CurrencyCode::parse("EUR").expect("valid");
        let cases = [
            (OrderError::InvalidQuantity, "INVALID_QUANTITY", ErrorKind::Validation),
            (OrderError::InvalidPrice, "INVALID_PRICE", ErrorKind::Validation),
            (OrderError::CurrencyMismatch { order: usd, line: eur }, "CURRENCY_MISMATCH", ErrorKind::Validation),
            (OrderError::LineNotFound, "LINE_NOT_FOUND", ErrorKind::NotFound),
            (OrderError::OrderNotFound, "ORDER_NOT_FOUND", ErrorKind::NotFound),
            (OrderError::OrderEmpty, "ORDER_EMPTY", ErrorKind::Conflict),
            (OrderError::NotEditable { status: OrderStatus::Confirmed }, "ORDER_NOT_EDITABLE", ErrorKind::Conflict),
            (OrderError::AlreadyCancelled, "ORDER_ALREADY_CANCELLED", ErrorKind::Conflict),
            (
                OrderError::InvalidTransition { from: OrderStatus::Fulfilled, action: "cancel" },
                "INVALID_STATUS_TRANSITION",
                ErrorKind::Conflict,
            ),
            (
                OrderError::StockNotReserved { reservation: ReservationStatus::Pending },
                "STOCK_NOT_RESERVED",
                ErrorKind::Conflict,
            ),
            (OrderError::Validation { field: "tax", message: "x" }, "VALIDATION_ERROR", ErrorKind::Validation),
        ];
        for (error, code, kind) in cases {
            assert_eq!(error.code(), code);
            assert_eq!(error.kind(), kind, "{code}");
        }
    }

    #[test]
    fn messages_name_the_states() {
        let error = OrderError::InvalidTransition { from: OrderStatus::Fulfilled, action: "cancel" };
        assert_eq!(error.to_string(), "cannot cancel an order that is fulfilled");
        assert_eq!(OrderError::out_of_range("total").field(), Some("total"));
    }
}
