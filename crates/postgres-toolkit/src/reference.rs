//! Reference data: idempotent seeding and read queries.
//!
//! Seeding inserts missing rows and refreshes the descriptive columns of
//! existing ones, but never touches `is_active`, which belongs to operators.

use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::db::DbError;
use crate::pipeline::transaction;
use crate::schema::{countries, currencies, languages, timezones};
use crate::DbPool;

pub mod queries;

pub use queries::{CountryRow, CurrencyRow, LanguageRow, ReferenceFilter, TimezoneRow};

/// Seeds all four data sets in one transaction.
pub async fn seed(pool: &DbPool) -> Result<(), DbError> {
    let mut conn = pool.get().await?;
    transaction(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<(), DbError> {
        for chunk in reference_data::currencies().chunks(500) {
            let rows: Vec<_> = chunk
                .iter()
                .map(|c| {
                    (
                        currencies::code.eq(&c.code),
                        currencies::name.eq(&c.name),
                        currencies::symbol.eq(&c.symbol),
                        currencies::decimal_digits.eq(c.decimal_digits),
                    )
                })
                .collect();
            diesel::insert_into(currencies::table)
                .values(&rows)
                .on_conflict(currencies::code)
                .do_update()
                .set((
                    currencies::name.eq(excluded(currencies::name)),
                    currencies::symbol.eq(excluded(currencies::symbol)),
                    currencies::decimal_digits.eq(excluded(currencies::decimal_digits)),
                ))
                .execute(&mut conn)
                .await?;
        }
        for chunk in reference_data::languages().chunks(500) {
            let rows: Vec<_> = chunk
                .iter()
                .map(|l| {
                    (
                        languages::code.eq(&l.code),
                        languages::name.eq(&l.name),
                        languages::native_name.eq(&l.native_name),
                        languages::direction.eq(&l.direction),
                    )
                })
                .collect();
            diesel::insert_into(languages::table)
                .values(&rows)
                .on_conflict(languages::code)
                .do_update()
                .set((
                    languages::name.eq(excluded(languages::name)),
                    languages::native_name.eq(excluded(languages::native_name)),
                    languages::direction.eq(excluded(languages::direction)),
                ))
                .execute(&mut conn)
                .await?;
        }
        for chunk in reference_data::countries().chunks(500) {
            let rows: Vec<_> = chunk
                .iter()
                .map(|c| {
                    (
                        countries::code.eq(&c.code),
                        countries::name.eq(&c.name),
                        countries::region.eq(&c.region),
                        countries::currency_code.eq(&c.currency_code),
                        countries::calling_code.eq(&c.calling_code),
                        countries::local_name.eq(&c.local_name),
                        countries::language_code.eq(&c.language_code),
                    )
                })
                .collect();
            diesel::insert_into(countries::table)
                .values(&rows)
                .on_conflict(countries::code)
                .do_update()
                .set((
                    countries::name.eq(excluded(countries::name)),
                    countries::region.eq(excluded(countries::region)),
                    countries::currency_code.eq(excluded(countries::currency_code)),
                    countries::calling_code.eq(excluded(countries::calling_code)),
                    countries::local_name.eq(excluded(countries::local_name)),
                    countries::language_code.eq(excluded(countries::language_code)),
                ))
                .execute(&mut conn)
                .await?;
        }
        for chunk in reference_data::timezones().chunks(500) {
            let rows: Vec<_> = chunk
                .iter()
                .map(|t| {
                    (
                        timezones::code.eq(&t.code),
                        timezones::name.eq(&t.name),
                        timezones::utc_offset.eq(&t.utc_offset),
                        timezones::supports_dst.eq(t.supports_dst),
                        timezones::region.eq(&t.region),
                    )
                })
                .collect();
            diesel::insert_into(timezones::table)
                .values(&rows)
                .on_conflict(timezones::code)
                .do_update()
                .set((
                    timezones::name.eq(excluded(timezones::name)),
                    timezones::utc_offset.eq(excluded(timezones::utc_offset)),
                    timezones::supports_dst.eq(excluded(timezones::supports_dst)),
                    timezones::region.eq(excluded(timezones::region)),
                ))
                .execute(&mut conn)
                .await?;
        }
        Ok(())
    })
    .await
}
