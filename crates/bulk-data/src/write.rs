//! Export writers: a row at a time, appended to a buffer the caller owns and empties, so a server
//! streams chunks with flat memory.
//!
//! ```
//! use bulk_data::write::CsvWriter;
//! use serde_json::json;
//!
//! let mut writer = CsvWriter::new(["name", "tags", "phone"]);
//! let mut buffer = Vec::new();
//! writer.write_header(&mut buffer);
//! let row = json!({"name": "Smith, Jo", "tags": ["vip", "b2b"], "phone": "+380441234567"});
//! writer.write_row(row.as_object().expect("an object"), &mut buffer);
//! assert_eq!(String::from_utf8(buffer).expect("UTF-8"), "name,tags,phone\r\n\"Smith, Jo\",vip;b2b,'+380441234567\r\n");
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

use crate::cell::{join_list, neutralise};
use crate::record::FieldValue;

/// Writes CSV (RFC 4180: `,` between cells, CRLF after each row, a cell holding `,`, `"`, CR or LF
/// quoted with its `"` doubled) in a fixed column order.
///
/// A cell is the row's value under the column's name: text neutralised ([`neutralise`]); a number
/// or boolean as JSON writes it; a list's items `;`-joined ([`join_list`]; an item that is not text
/// as its JSON text), then neutralised; an object as its JSON text; `null`, a missing key and an
/// empty list as an empty cell.
#[derive(Debug, Clone)]
pub struct CsvWriter {
    columns: Vec<String>,
    scratch: String,
}

impl CsvWriter {
    /// A writer of these columns, in this order.
    pub fn new<I, S>(columns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self { columns: columns.into_iter().map(Into::into).collect(), scratch: String::new() }
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Appends the header row.
    pub fn write_header(&self, out: &mut Vec<u8>) {
        let single = self.columns.len() == 1;
        for (i, name) in self.columns.iter().enumerate() {
            write_cell(i, single, name, out);
        }
        out.extend_from_slice(b"\r\n");
    }

    /// Appends one row.
    pub fn write_row(&mut self, row: &Map<String, Value>, out: &mut Vec<u8>) {
        let single = self.columns.len() == 1;
        for i in 0..self.columns.len() {
            let value = row.get(&self.columns[i]);
            cell(&mut self.scratch, i, single, value, out);
        }
        out.extend_from_slice(b"\r\n");
    }

    /// Appends one record given as its typed fields in column order (missing ones are empty
    /// cells), by the same cell rules: what an export reads from the database.
    pub fn write_fields(&mut self, fields: &[FieldValue], out: &mut Vec<u8>) {
        let single = self.columns.len() == 1;
        for i in 0..self.columns.len() {
            self.scratch.clear();
            let is_text = fields.get(i).is_some_and(|f| f.render_cell(&mut self.scratch));
            finish_cell(&self.scratch, is_text, i, single, out);
        }
        out.extend_from_slice(b"\r\n");
    }
}

/// Appends the `index`th cell of a row: `value` rendered into `scratch`, then neutralised if text.
fn cell(scratch: &mut String, index: usize, single: bool, value: Option<&Value>, out: &mut Vec<u8>) {
    scratch.clear();
    let is_text = render(value, scratch);
    finish_cell(scratch, is_text, index, single, out);
}

/// Appends a rendered cell, neutralised if it is text.
fn finish_cell(rendered: &str, is_text: bool, index: usize, single: bool, out: &mut Vec<u8>) {
    if is_text {
        write_cell(index, single, &neutralise(rendered), out);
    } else {
        write_cell(index, single, rendered, out);
    }
}

/// A value's cell text, before neutralisation; whether it is text (numbers and booleans are not
/// neutralised: `-7` stays a number).
fn render(value: Option<&Value>, out: &mut String) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => {
            out.push_str(s);
            true
        }
        Some(Value::Array(items)) => {
            let texts: Vec<String> = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect();
            join_list(texts.iter().map(String::as_str), out);
            true
        }
        Some(object @ Value::Object(_)) => {
            out.push_str(&object.to_string());
            true
        }
        Some(other) => {
            out.push_str(&other.to_string());
            false
        }
    }
}

/// Appends the `index`th cell of a record (`single`: the record's only one).
fn write_cell(index: usize, single: bool, cell: &str, out: &mut Vec<u8>) {
    if index > 0 {
        out.push(b',');
    }
    // A lone empty cell is quoted: an empty line would be read as no row at all.
    if (single && cell.is_empty()) || cell.bytes().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n')) {
        out.push(b'"');
        for part in cell.split_inclusive('"') {
            out.extend_from_slice(part.as_bytes());
            if part.ends_with('"') {
                out.push(b'"');
            }
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(cell.as_bytes());
    }
}

/// Writes JSONL: one JSON value a line, as it serializes (no neutralisation: JSONL is not opened by
/// spreadsheets, and its values keep their types).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlWriter;

impl JsonlWriter {
    /// Appends `row` and a `\n`.
    pub fn write_row<T: Serialize + ?Sized>(&self, row: &T, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(&mut *out, row)?;
        out.push(b'\n');
        Ok(())
    }

    /// Appends one record given as its typed fields, named by `columns` in order, as one object.
    pub fn write_fields<S: AsRef<str>>(
        &self,
        columns: &[S],
        fields: &[FieldValue],
        out: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        out.push(b'{');
        for (i, (name, field)) in columns.iter().zip(fields).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, name.as_ref())?;
            out.push(b':');
            serde_json::to_writer(&mut *out, field)?;
        }
        out.extend_from_slice(b"}\n");
        Ok(())
    }
}

/// The prefix of an order line's fields in an order's CSV rows (`line_id`, `line_quantity`, …).
pub const LINE_PREFIX: &str = "line_";

/// An order (its JSON object, `lines` included) as CSV rows: one a line, the order's fields
/// repeated on each and the line's fields prefixed `line_` (`line_id`, `line_sku`, …); one row
/// with no line fields for an order without lines. JSONL writes the order as it is, `lines` inside.
pub fn order_csv_rows(order: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let mut head = order.clone();
    let lines = match head.remove("lines") {
        Some(Value::Array(lines)) => lines,
        _ => Vec::new(),
    };
    if lines.is_empty() {
        return vec![head];
    }
    lines
        .into_iter()
        .map(|line| {
            let mut row = head.clone();
            if let Value::Object(line) = line {
                for (key, value) in line {
                    row.insert(format!("{LINE_PREFIX}{key}"), value);
                }
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn cells_are_quoted_only_when_they_must_be() {
        let mut writer = CsvWriter::new(["a", "b", "c", "d", "e"]);
        let mut out = Vec::new();
        let row = json!({"a": "plain", "b": "with, comma", "c": "say \"hi\"", "d": "two\nlines", "e": 12});
        writer.write_row(row.as_object().expect("an object"), &mut out);
        assert_eq!(text(out), "plain,\"with, comma\",\"say \"\"hi\"\"\",\"two\nlines\",12\r\n");
    }

    #[test]
    fn values_render_by_their_type() {
        let mut writer = CsvWriter::new(["n", "neg", "b", "list", "empty", "obj", "null", "missing", "formula"]);
        let mut out = Vec::new();
        let row = json!({"n": 5, "neg": -7, "b": false, "list": ["x;y", "=z"], "empty": [],
                         "obj": {"city": "Kyiv"}, "null": null, "formula": "=1+1"});
        writer.write_row(row.as_object().expect("an object"), &mut out);
        assert_eq!(text(out), "5,-7,false,x\\;y;=z,,\"{\"\"city\"\":\"\"Kyiv\"\"}\",,,'=1+1\r\n");
    }

    #[test]
    fn typed_fields_write_the_cells_their_json_would() {
        let columns = ["n", "neg", "b", "list", "empty", "null", "formula", "at", "id"];
        let id = uuid::Uuid::from_u128(7);
        let at = time::macros::datetime!(2026-11-29 03:04:05.5 UTC);
        let fields = [
            FieldValue::Integer(5),
            FieldValue::Integer(-7),
            FieldValue::Boolean(false),
            FieldValue::List(vec!["x;y".into(), "=z".into()]),
            FieldValue::List(Vec::new()),
            FieldValue::Null,
            FieldValue::Text("=1+1".into()),
            FieldValue::Instant(at),
            FieldValue::Uuid(id),
        ];
        let row = json!({"n": 5, "neg": -7, "b": false, "list": ["x;y", "=z"], "empty": [], "null": null,
                         "formula": "=1+1", "at": "2026-11-29T03:04:05.5Z", "id": id.to_string()});
        let (mut by_name, mut typed) = (Vec::new(), Vec::new());
        CsvWriter::new(columns).write_row(row.as_object().expect("an object"), &mut by_name);
        CsvWriter::new(columns).write_fields(&fields[..8], &mut typed);
        assert_ne!(by_name, typed, "the last cell is missing from the fields");
        typed.clear();
        CsvWriter::new(columns).write_fields(&fields, &mut typed);
        assert_eq!(text(by_name), text(typed));
        let mut jsonl = Vec::new();
        JsonlWriter.write_fields(&columns, &fields, &mut jsonl).expect("serializes");
        assert_eq!(serde_json::from_slice::<Value>(&jsonl).expect("JSON"), row);
    }

    #[test]
    fn a_lone_empty_cell_is_quoted() {
        let mut writer = CsvWriter::new(["only"]);
        let mut out = Vec::new();
        writer.write_row(&Map::new(), &mut out);
        assert_eq!(text(out), "\"\"\r\n");
    }

    #[test]
    fn the_buffer_is_reused_row_after_row() {
        let mut writer = CsvWriter::new(["name"]);
        let mut out = Vec::with_capacity(64);
        for i in 0..10_000 {
            writer.write_row(json!({"name": format!("n{i}")}).as_object().expect("an object"), &mut out);
            if out.len() >= 48 {
                out.clear();
            }
        }
        assert!(out.capacity() <= 64);
    }

    #[test]
    fn jsonl_is_one_object_a_line() {
        let mut out = Vec::new();
        JsonlWriter.write_row(&json!({"a": "x\ny", "lines": [{"q": 1}]}), &mut out).expect("serializes");
        JsonlWriter.write_row(&json!({"a": "=z"}), &mut out).expect("serializes");
        assert_eq!(text(out), "{\"a\":\"x\\ny\",\"lines\":[{\"q\":1}]}\n{\"a\":\"=z\"}\n");
    }

    #[test]
    fn an_order_is_one_csv_row_a_line_with_its_columns_repeated() {
        let order = json!({"id": "o1", "order_number": "ORD-2026-000001", "total": 300,
                           "lines": [{"id": "l1", "sku": "A", "quantity": 1}, {"id": "l2", "sku": "B", "quantity": 2}]});
        let rows = order_csv_rows(order.as_object().expect("an object"));
        assert_eq!(rows.len(), 2);
        for (row, (line, sku)) in rows.iter().zip([("l1", "A"), ("l2", "B")]) {
            assert_eq!(row["order_number"], "ORD-2026-000001");
            assert_eq!(row["total"], 300);
            assert_eq!(row["line_id"], line);
            assert_eq!(row["line_sku"], sku);
            assert!(!row.contains_key("lines"));
        }
        let empty = json!({"id": "o2", "lines": []});
        let rows = order_csv_rows(empty.as_object().expect("an object"));
        assert_eq!(rows, vec![json!({"id": "o2"}).as_object().cloned().expect("an object")]);
    }
}
