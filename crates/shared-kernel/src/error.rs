//! Error kinds shared by every context.
//!
//! Domain errors stay specific (one enum per operation); each one says which
//! kind it is and which stable wire code it carries. Only the HTTP adapter
//! turns a kind into a status, in one place.

/// The broad class of a failure, independent of transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is malformed or breaks a rule about its shape.
    Validation,
    /// The caller is not authenticated (or the credentials are bad).
    Unauthenticated,
    /// The caller is authenticated but may not do this.
    Forbidden,
    /// The addressed thing does not exist (or is hidden from the caller).
    NotFound,
    /// The request conflicts with the current state of a resource.
    Conflict,
    /// The account is temporarily locked.
    Locked,
    /// Too many requests.
    RateLimited,
    /// A dependency (database, cache, bus) is unavailable.
    Unavailable,
    /// Anything else: a bug or an unexpected infrastructure failure.
    Internal,
}

/// A domain error that knows its kind and its stable wire code. Implementations must give each
/// variant one fixed kind and code: clients match on the code.
pub trait Classified {
    /// The broad class, from which the HTTP adapter picks the status.
    fn kind(&self) -> ErrorKind;
    /// Stable, upper-case code such as `INVALID_STATUS_TRANSITION`.
    fn code(&self) -> &'static str;
}
