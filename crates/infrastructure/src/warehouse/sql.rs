//! SQL functions the warehouse queries use.

use diesel::sql_types::{Nullable, Text};

diesel::define_sql_function! {
    /// SQL `lower()`, for the case-insensitive look-ups behind the `lower(…)` indexes.
    fn lower(text: Text) -> Text;
}

diesel::define_sql_function! {
    /// SQL `lower()` of a nullable column.
    #[sql_name = "lower"]
    fn lower_opt(text: Nullable<Text>) -> Nullable<Text>;
}
