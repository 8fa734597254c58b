//! Why a use case of the order context failed: a rule of the aggregate, a reference the order names
//! that does not hold, or storage.

use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::StorageError;

use crate::error::OrderError;

/// A use case's failure, with its stable wire code ([`Classified::code`]), its HTTP class
/// ([`Classified::kind`]) and the request field it concerns ([`OrderUseCaseError::field`]).
///
/// The order a use case works on being absent is [`OrderError::OrderNotFound`]
/// (`ORDER_NOT_FOUND`), never a bare storage `NotFound`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderUseCaseError {
    /// A rule of the order refused (see [`OrderError`] for the codes).
    #[error(transparent)]
    Refused(#[from] OrderError),
    /// `CUSTOMER_NOT_FOUND` 404: the order names no live customer.
    #[error("no such customer")]
    CustomerNotFound,
    /// `NOT_FOUND` 404: the order names no live company.
    #[error("no such company")]
    CompanyNotFound,
    /// `NOT_FOUND` 404: a line names no live product.
    #[error("no such product")]
    ProductNotFound {
        /// The request field naming it when there are several (`items[2].product_id`); `None` for
        /// the one product of an added line.
        field: Option<String>,
    },
    /// `VALIDATION_ERROR` 400: a line names a product that may no longer be ordered.
    #[error("the product is discontinued")]
    ProductNotOrderable {
        /// The request field naming it (`product_id`, `items[2].product_id`).
        field: String,
    },
    /// `VALIDATION_ERROR` 400: the currency is not an active ISO 4217 code.
    #[error("must be an active ISO 4217 currency code")]
    InactiveCurrency {
        /// The request field holding it (`currency`).
        field: &'static str,
    },
    /// `VALIDATION_ERROR` 400 on `items`: more lines than one creation may carry.
    #[error("at most {max} items are allowed")]
    TooManyItems {
        /// The most lines a creation may carry ([`crate::application::MAX_ORDER_ITEMS`]).
        max: usize,
    },
    /// Storage failed (`CONFLICT` after too many lost races, 503, 500, a named constraint).
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl OrderUseCaseError {
    /// The order the use case works on is gone: storage's `NotFound` becomes `ORDER_NOT_FOUND`.
    pub(crate) fn of_order(error: StorageError) -> Self {
        match error {
            StorageError::NotFound => Self::Refused(OrderError::OrderNotFound),
            other => Self::Storage(other),
        }
    }

    /// The request field the error's `details` names, if any: a refused rule's field for a 400,
    /// the field of a product, currency or item-count problem, or the field a storage conflict or
    /// missing reference concerns.
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Refused(error) if error.kind() == ErrorKind::Validation => error.field(),
            Self::ProductNotFound { field } => field.as_deref(),
            Self::ProductNotOrderable { field } => Some(field),
            Self::InactiveCurrency { field } => Some(field),
            Self::TooManyItems { .. } => Some("items"),
            Self::Storage(error) => error.field().filter(|field| *field != "resource"),
            Self::Refused(_) | Self::CustomerNotFound | Self::CompanyNotFound => None,
        }
    }
}

impl Classified for OrderUseCaseError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Refused(error) => error.kind(),
            Self::CustomerNotFound | Self::CompanyNotFound | Self::ProductNotFound { .. } => ErrorKind::NotFound,
            Self::ProductNotOrderable { .. } | Self::InactiveCurrency { .. } | Self::TooManyItems { .. } => {
                ErrorKind::Validation
            }
            Self::Storage(error) => error.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Refused(error) => error.code(),
            Self::CustomerNotFound => "CUSTOMER_NOT_FOUND",
            Self::CompanyNotFound | Self::ProductNotFound { .. } => "NOT_FOUND",
            Self::ProductNotOrderable { .. } | Self::InactiveCurrency { .. } | Self::TooManyItems { .. } => {
                "VALIDATION_ERROR"
            }
            Self::Storage(error) => error.code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::OrderStatus;

    #[test]
    fn codes_kinds_and_fields() {
        let cases: [(OrderUseCaseError, &str, ErrorKind, Option<&str>); 9] = [
            (OrderError::InvalidQuantity.into(), "INVALID_QUANTITY", ErrorKind::Validation, Some("quantity")),
            (OrderError::OrderEmpty.into(), "ORDER_EMPTY", ErrorKind::Conflict, None),
            (OrderUseCaseError::CustomerNotFound, "CUSTOMER_NOT_FOUND", ErrorKind::NotFound, None),
            (OrderUseCaseError::CompanyNotFound, "NOT_FOUND", ErrorKind::NotFound, None),
            (
                OrderUseCaseError::ProductNotFound { field: Some("items[1].product_id".into()) },
                "NOT_FOUND",
                ErrorKind::NotFound,
                Some("items[1].product_id"),
            ),
            (
                OrderUseCaseError::ProductNotOrderable { field: "product_id".into() },
                "VALIDATION_ERROR",
                ErrorKind::Validation,
                Some("product_id"),
            ),
            (
                OrderUseCaseError::InactiveCurrency { field: "currency" },
                "VALIDATION_ERROR",
                ErrorKind::Validation,
                Some("currency"),
            ),
            (OrderUseCaseError::TooManyItems { max: 100 }, "VALIDATION_ERROR", ErrorKind::Validation, Some("items")),
            (StorageError::Stale.into(), "CONFLICT", ErrorKind::Conflict, None),
        ];
        for (error, code, kind, field) in cases {
            assert_eq!((error.code(), error.kind(), error.field()), (code, kind, field), "{error:?}");
        }
    }

    #[test]
    fn a_missing_order_is_order_not_found() {
        let missing = OrderUseCaseError::of_order(StorageError::NotFound);
        assert_eq!(missing, OrderUseCaseError::Refused(OrderError::OrderNotFound));
        assert_eq!(missing.code(), "ORDER_NOT_FOUND");
        assert_eq!(OrderUseCaseError::of_order(StorageError::Stale), OrderUseCaseError::Storage(StorageError::Stale));
        let refused: OrderUseCaseError = OrderError::NotEditable { status: OrderStatus::Confirmed }.into();
        assert_eq!(refused.to_string(), OrderError::NotEditable { status: OrderStatus::Confirmed }.to_string());
    }
}
