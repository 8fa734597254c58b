//! SQL functions the warehouse queries use.

use diesel::sql_types::{Nullable, Text};

pub(crate) use postgres_toolkit::db::lower;

diesel::define_sql_function! {
    /// SQL `lower()` of a nullable column.
    #[sql_name = "lower"]
    fn lower_opt(text: Nullable<Text>) -> Nullable<Text>;
}
