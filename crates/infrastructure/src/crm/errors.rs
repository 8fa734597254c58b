//! Diesel and pool failures as the customer-management `RepoError`, by constraint name.

pub(crate) use crate::db::contains_pattern;
use crm_domain::RepoError;
use diesel::result::{DatabaseErrorKind, Error as DieselError};

/// The request field a constraint of `migrations/…_crm` guards.
fn field_of(constraint: Option<&str>) -> &'static str {
    match constraint.unwrap_or_default() {
        "customers_email_key" | "customers_company_email_key" => "email",
        "customers_user_key" | "customers_user_id_fkey" => "user_id",
        "customers_company_id_fkey" | "interactions_company_id_fkey" => "company_id",
        "customers_assigned_to_fkey" | "deals_assigned_to_fkey" => "assigned_to",
        "deals_customer_id_fkey" | "interactions_customer_id_fkey" => "customer_id",
        "interactions_created_by_fkey" => "created_by",
        _ => "resource",
    }
}

pub(crate) fn from_diesel(error: DieselError) -> RepoError {
    match error {
        DieselError::NotFound => RepoError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            RepoError::Duplicate { field: field_of(info.constraint_name()) }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info) => {
            RepoError::MissingReference { field: field_of(info.constraint_name()) }
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            RepoError::Unavailable(info.message().to_owned())
        }
        other => RepoError::Unknown(other.to_string()),
    }
}

/// A stored value the CHECK constraints should have made impossible.
pub(crate) fn corrupt(what: &str, value: &str) -> RepoError {
    RepoError::Unknown(format!("stored {what} '{value}' is not valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_name_their_fields() {
        assert_eq!(field_of(Some("customers_company_email_key")), "email");
        assert_eq!(field_of(Some("deals_customer_id_fkey")), "customer_id");
        assert_eq!(field_of(Some("interactions_created_by_fkey")), "created_by");
        assert_eq!(field_of(None), "resource");
        assert_eq!(contains_pattern("50%_a\\"), "%50\\%\\_a\\\\%");
    }
}
