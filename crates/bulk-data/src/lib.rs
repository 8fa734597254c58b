//! Bulk data in and out without I/O: bytes become rows and rows become bytes.
//!
//! Nothing here reads a socket, a file or the clock, or needs an async runtime. The importer feeds
//! [`read::RowReader`] the upload's chunks as they arrive (and again, from storage, when a job
//! runs or resumes) and gets each row as the resource's create body; the exporter hands
//! [`write::CsvWriter`] or [`write::JsonlWriter`] one record at a time and sends the buffer on when
//! it is full. [`job::ImportJob`] is the job's lifecycle, [`upsert::decide`] says whether a matched
//! record changes. `docs/imports-and-exports.md` says the same for users of the API.
//!
//! # Resources and columns
//!
//! Imports take `customers`, `companies`, `products` and `inventory` ([`ImportResource`]). Their
//! columns ([`schema`]) are the create body's fields, plus `id` (an upsert matches a row by it) and
//! the read-only fields an export writes (`created_at`, `type`, `quantity_reserved`, …), which an
//! import accepts and ignores, so an export can be imported as it is:
//!
//! | resource | required | other fields | ignored |
//! |---|---|---|---|
//! | customers | `name`, `email` | `user_id`, `company_id`, `phone`, `status`, `tier`, `source`, `assigned_to`, `tags` | `type`, `created_at`, `updated_at`, `churned_at` |
//! | companies | `name` | `website`, `industry` | `created_at`, `updated_at` |
//! | products | `sku`, `name` | `description`, `category`, `brand`, `weight_grams`, `length_mm`, `width_mm`, `height_mm`, `price`, `currency` | `status`, `created_at`, `updated_at` |
//! | inventory | `sku` or `product_id`; `location_code` or `location_id` | `quantity_on_hand`, `reorder_point`, `min_stock`, `max_stock` | `quantity_reserved`, `quantity_available`, `quantity_committed`, `created_at`, `updated_at` |
//!
//! Every resource also takes `id`. Column names are matched exactly (after trimming spaces around
//! them). A CSV header with an unknown column, a column twice, or without a required column is
//! refused whole, every such column named at once ([`HeaderError`]; 400 `VALIDATION_ERROR` with
//! `details`, and no job). A row without a value in a required column is the create endpoint's
//! business: it fails with that endpoint's code, as a `POST` without the field would. An inventory
//! row that names neither `sku` nor `product_id` (or neither location column) is refused here, since
//! no single endpoint has that rule.
//!
//! # CSV
//!
//! RFC 4180, UTF-8, header row first: cells separated by `,`, rows ended by CRLF or LF, a cell
//! holding `,`, `"` or a line break quoted with `"` and its `"` doubled. A leading UTF-8 byte-order
//! mark (as spreadsheets write) is dropped. Blank lines are skipped.
//!
//! - **Row numbers** count data rows from 1 (the row after the header); a quoted cell that spans
//!   lines keeps its row one number; blank lines do not count.
//! - **Empty cell** = the field is absent (not given). CSV cannot say `null` or `""`: an empty list,
//!   an empty text and `null` all export as an empty cell and import as absent.
//! - **Text** is kept as written (the resource's rules trim it).
//! - **Numbers** (`price`, `quantity_on_hand`, …) are whole numbers (`-12`, `0`, `4200`, spaces
//!   around allowed) that fit 64 bits; anything else is a row error on that field.
//! - **Booleans** are `true` or `false`, any case.
//! - **Lists** (`tags`) are `;`-separated in one cell (`vip;b2b`); each item is trimmed and empty
//!   items are dropped. An item holding `;` or `\` is written `\;` or `\\` (a `\` before anything
//!   else stays as it is).
//! - **Objects** (an `address`) are their JSON text in one cell
//!   (`"{""city"":""Kyiv""}"` once CSV-quoted).
//!
//! # JSONL
//!
//! One JSON object a line, UTF-8, lines ended by LF or CRLF. Row numbers are line numbers from 1.
//! Blank lines (a trailing one included) are skipped, but still counted so that a number is always
//! the line's. Keys are the columns above; values are what the create body takes (`tags` an array,
//! numbers as numbers, `null` for none). Read-only keys are dropped; an unknown key fails its row
//! (one error per key). JSONL is never neutralised: it is not a spreadsheet format.
//!
//! # Spreadsheet formulas
//!
//! A spreadsheet runs a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
//! as a formula. Exports neutralise such text with a leading `'` ([`cell::neutralise`]), and
//! imports take it off again ([`cell::restore`]): `=SUM(A1)` exports as `'=SUM(A1)` and imports as
//! `=SUM(A1)`. So that this reverses every text exactly, text that itself starts with `'` followed
//! by one of those characters or by another `'` gets one more `'` too (`'=x` exports as `''=x`).
//! Numbers and booleans are never neutralised (`-7` stays a number); a list cell is neutralised as
//! a whole.
//!
//! A cell that *is* a formula in an uploaded CSV (starts with `=` and has no `'`) is data: it is
//! imported as the text it is. Tally never evaluates a cell, every export neutralises it again, and
//! refusing such cells would refuse ordinary data that starts with those characters: every phone
//! number (`+380…`), a name such as `-Café-`, a product code such as `@home`. A user who imports
//! `=1+1` as a company name expects to see `=1+1` as its name, not an error, and not `2`.
//!
//! # Bad files
//!
//! A problem with one row is a row error ([`RowError`]: `{field, code, message}`, the row's number
//! beside it); the job reports it and goes on. These are row errors: a CSV row with more or fewer
//! cells than the header, a cell that does not parse by its column's type, a JSONL line that is not
//! JSON or not an object, an unknown JSONL key, a row longer than [`MAX_ROW_BYTES`] (1 MiB, the
//! API's body limit) or than [`MAX_CELLS`] cells. A problem that stops the reading is a file error
//! ([`FileError`]): bytes that are not UTF-8 (naming the row), a quoted cell still open at the end
//! of the file (naming the row that opened it), a CSV header that does not fit the resource, an
//! empty file. **Empty** means a CSV without a header row (no bytes, or only blank lines) or a
//! JSONL file without a non-blank line: there is nothing to import, and an upload of nothing is
//! almost always the wrong file, so it is refused (400 at upload) rather than made a job of zero
//! rows. A CSV with a header and no data rows is not empty: it is what an export of nothing
//! writes, and makes a job that succeeds with 0 rows.
//!
//! Memory stays bounded whatever the file: a reader holds one row at most, so a file of 10^5 bad
//! rows yields 10^5 row errors one after another with the same buffers; the caller stores them and
//! keeps only counts.
//!
//! # Exports
//!
//! A CSV export writes a header of the resource's fields ([`export::ExportResource::csv_columns`])
//! and one row a record, with the cell rules above in reverse (a list `;`-joined, an object as JSON
//! text, absent or `null` as an empty cell, text neutralised), RFC 4180 quoting and CRLF line ends.
//! An order is one row per line, the order's fields repeated on each and the line's prefixed
//! `line_` ([`write::order_csv_rows`]); in JSONL an order is one object with its `lines`. A JSONL
//! export writes each record as the API shows it, one a line. Exported CSV read back by the import
//! reader gives the record's importable fields again (less what CSV cannot say: empty values).

#![deny(missing_docs)]

pub mod cell;
pub mod error;
pub mod export;
pub mod job;
pub mod read;
pub mod record;
pub mod schema;
pub mod upsert;
pub mod write;

pub use error::{FileError, HeaderError, RowError, RowErrors, MAX_CELLS, MAX_ROW_BYTES, VALIDATION_ERROR};
pub use export::ExportResource;
pub use job::{
    Counts, ImportJob, ImportMode, ImportOptions, InvalidTransition, JobStatus, RowOutcome, Trigger,
    INVALID_STATUS_TRANSITION,
};
pub use read::{CsvReader, JsonlReader, RowReader, RowResult};
pub use record::FieldValue;
pub use schema::{Column, FieldType, Format, ImportResource, Role, Schema};
pub use upsert::{decide, UpsertDecision};
pub use write::{order_csv_rows, CsvWriter, JsonlWriter};
