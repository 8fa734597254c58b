//! Streaming row readers: fed the file chunk by chunk, they yield each row as soon as it is
//! complete, holding at most one row (bounded by [`MAX_ROW_BYTES`]) whatever the file's size.
//!
//! ```
//! use bulk_data::read::RowReader;
//! use bulk_data::{Format, ImportResource};
//!
//! let mut reader = RowReader::new(Format::Csv, ImportResource::Companies);
//! let mut rows = Vec::new();
//! for chunk in [&b"name,webs"[..], b"ite\nAcme,https://acme.example\n", b"\"Bolt, Inc\","] {
//!     for item in reader.feed(chunk) {
//!         rows.push(item.expect("a readable file"));
//!     }
//! }
//! for item in reader.finish() {
//!     rows.push(item.expect("a readable file"));
//! }
//! assert_eq!(rows.len(), 2);
//! assert_eq!(rows[1].0, 2); // the second data row
//! assert_eq!(rows[1].1.as_ref().expect("a good row")["name"], "Bolt, Inc");
//! ```

use serde_json::{Map, Value};

use crate::error::{FileError, RowError, RowErrors, MAX_CELLS, MAX_ROW_BYTES};
use crate::schema::{Column, Format, ImportResource, Schema};

/// A row read: the create body's fields, or every problem found in it.
pub type RowResult = Result<Map<String, Value>, RowErrors>;

/// What a reader yields: `(row number, row)`, or the file error that ends the reading (after it the
/// reader yields nothing more).
pub type Item = Result<(u64, RowResult), FileError>;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The buffer a reader goes back to after a row longer than it.
const SETTLED_BUFFER: usize = 64 * 1024;

/// Drops a UTF-8 byte-order mark at the start of a file, even split across chunks.
#[derive(Debug, Default)]
struct BomStripper {
    /// BOM bytes matched so far; `None` once past the start of the file.
    matched: Option<usize>,
}

impl BomStripper {
    fn new() -> Self {
        Self { matched: Some(0) }
    }

    /// `input` without the BOM bytes it holds, or `Err` when a BOM begun in an earlier chunk is
    /// broken (those bytes were not UTF-8).
    fn strip<'a>(&mut self, input: &'a [u8]) -> Result<&'a [u8], FileError> {
        let Some(matched) = self.matched else { return Ok(input) };
        let take = (BOM.len() - matched).min(input.len());
        if input[..take] == BOM[matched..matched + take] {
            let matched = matched + take;
            self.matched = (matched < BOM.len()).then_some(matched);
            Ok(&input[take..])
        } else if matched == 0 {
            self.matched = None;
            Ok(input)
        } else {
            self.matched = None;
            Err(FileError::NotUtf8 { row: 0 })
        }
    }

    /// At the end of the file: a BOM begun but not finished is bytes that are not UTF-8.
    fn finish(&self) -> Result<(), FileError> {
        match self.matched {
            Some(n) if n > 0 => Err(FileError::NotUtf8 { row: 0 }),
            _ => Ok(()),
        }
    }
}

/// Where an RFC 4180 parse stands, seen byte by byte alongside csv-core (which does not say), to
/// tell a quote still open at the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    /// At the start of a cell.
    CellStart,
    /// Inside an unquoted cell.
    Unquoted,
    /// Inside a quoted cell.
    Quoted,
    /// Just after a `"` inside a quoted cell: a second `"` is a literal one, anything else closes.
    QuoteInQuoted,
}

impl Quoting {
    fn step(self, byte: u8) -> Self {
        let boundary = matches!(byte, b',' | b'\n' | b'\r');
        match self {
            Self::CellStart if byte == b'"' => Self::Quoted,
            Self::CellStart | Self::Unquoted | Self::QuoteInQuoted if boundary => Self::CellStart,
            Self::CellStart | Self::Unquoted => Self::Unquoted,
            Self::Quoted if byte == b'"' => Self::QuoteInQuoted,
            Self::Quoted => Self::Quoted,
            Self::QuoteInQuoted if byte == b'"' => Self::Quoted,
            // `"ab"c`: csv-core reads it as `abc`; so does this.
            Self::QuoteInQuoted => Self::Unquoted,
        }
    }
}

/// Reads a CSV file (RFC 4180, UTF-8, header row first) chunk by chunk.
///
/// Rows are numbered from 1, the first row after the header; a quoted cell may span lines and the
/// row keeps one number. Blank lines are skipped and not counted. A leading UTF-8 BOM is dropped.
#[derive(Debug)]
pub struct CsvReader {
    schema: &'static Schema,
    parser: csv_core::Reader,
    bom: BomStripper,
    quoting: Quoting,
    /// The current record's unescaped bytes (`out[..out_len]`) and its cells' ends.
    out: Vec<u8>,
    out_len: usize,
    ends: Vec<usize>,
    ends_len: usize,
    /// The current record went past [`MAX_ROW_BYTES`] or [`MAX_CELLS`]: its content is dropped.
    too_long: bool,
    header: Option<Vec<&'static Column>>,
    header_names: Vec<String>,
    rows: u64,
    done: bool,
}

impl CsvReader {
    /// A reader of rows of `schema`.
    pub fn new(schema: &'static Schema) -> Self {
        Self {
            schema,
            parser: csv_core::Reader::new(),
            bom: BomStripper::new(),
            quoting: Quoting::CellStart,
            out: vec![0; 4096],
            out_len: 0,
            ends: vec![0; 32],
            ends_len: 0,
            too_long: false,
            header: None,
            header_names: Vec::new(),
            rows: 0,
            done: false,
        }
    }

    /// The header's column names (trimmed), once the header row is read and accepted.
    pub fn header(&self) -> Option<&[String]> {
        self.header.as_ref().map(|_| self.header_names.as_slice())
    }

    /// Data rows read so far.
    pub fn rows_read(&self) -> u64 {
        self.rows
    }

    /// Bytes held in buffers: stays under [`MAX_ROW_BYTES`] plus a few KiB, whatever the file.
    pub fn memory_in_use(&self) -> usize {
        self.out.capacity() + self.ends.capacity() * std::mem::size_of::<usize>()
    }

    /// The rows completed by `chunk` (the next bytes of the file). Drain the iterator before the
    /// next call: what it does not yield is lost.
    pub fn feed<'a>(&'a mut self, chunk: &'a [u8]) -> CsvRows<'a> {
        CsvRows { reader: self, input: chunk, end: false, stripped: false }
    }

    /// The last rows, once the file has no more bytes: the final row without a line break, and the
    /// file errors only the end reveals (no header, an unclosed quote).
    pub fn finish(&mut self) -> CsvRows<'_> {
        CsvRows { reader: self, input: &[], end: true, stripped: false }
    }

    fn fail(&mut self, error: FileError) -> Option<Item> {
        self.done = true;
        Some(Err(error))
    }

    /// The record just completed: the header (checked, yields nothing) or a data row.
    fn record(&mut self) -> Option<Item> {
        let (len, cells, too_long) = (self.out_len, self.ends_len, self.too_long);
        self.out_len = 0;
        self.ends_len = 0;
        self.too_long = false;
        if self.out.len() > SETTLED_BUFFER && len <= SETTLED_BUFFER {
            // One long row does not keep its buffer for the rest of the file.
            self.out.truncate(SETTLED_BUFFER);
            self.out.shrink_to_fit();
        }
        let Some(columns) = &self.header else {
            if too_long {
                return self.fail(FileError::HeaderTooLong);
            }
            let Some(names) = cell_texts(&self.out[..len], &self.ends[..cells]) else {
                return self.fail(FileError::NotUtf8 { row: 0 });
            };
            return match self.schema.check_header(&names) {
                Ok(columns) => {
                    self.header_names = names.iter().map(|n| n.trim().to_owned()).collect();
                    self.header = Some(columns);
                    None
                }
                Err(e) => self.fail(FileError::Header(e)),
            };
        };
        self.rows += 1;
        let row = self.rows;
        if too_long {
            let message = format!("the row is longer than {MAX_ROW_BYTES} bytes or {MAX_CELLS} cells");
            return Some(Ok((row, Err(vec![RowError::validation(None, message)]))));
        }
        let Some(cells) = cell_texts(&self.out[..len], &self.ends[..cells]) else {
            return self.fail(FileError::NotUtf8 { row });
        };
        if cells.len() != columns.len() {
            let message = format!("the row has {} cells where the header has {} columns", cells.len(), columns.len());
            return Some(Ok((row, Err(vec![RowError::validation(None, message)]))));
        }
        Some(Ok((row, self.schema.row_from_cells(columns, cells))))
    }
}

/// The cells of a record as text; `None` when one is not UTF-8.
fn cell_texts<'a>(bytes: &'a [u8], ends: &[usize]) -> Option<Vec<&'a str>> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let cell = std::str::from_utf8(&bytes[start..end]).ok();
            start = end;
            cell
        })
        .collect()
}

/// The rows a chunk completes ([`CsvReader::feed`], [`CsvReader::finish`]).
#[derive(Debug)]
pub struct CsvRows<'a> {
    reader: &'a mut CsvReader,
    input: &'a [u8],
    end: bool,
    stripped: bool,
}

impl Iterator for CsvRows<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        use csv_core::ReadRecordResult as R;
        let r = &mut *self.reader;
        if r.done {
            return None;
        }
        if !self.stripped {
            self.stripped = true;
            let stripped = if self.end { r.bom.finish().map(|()| self.input) } else { r.bom.strip(self.input) };
            match stripped {
                Ok(input) => self.input = input,
                Err(e) => return r.fail(e),
            }
        }
        loop {
            if self.input.is_empty() && !self.end {
                return None;
            }
            let (result, nin, nout, nend) =
                r.parser.read_record(self.input, &mut r.out[r.out_len..], &mut r.ends[r.ends_len..]);
            for &byte in &self.input[..nin] {
                r.quoting = r.quoting.step(byte);
            }
            self.input = &self.input[nin..];
            r.out_len += nout;
            r.ends_len += nend;
            match result {
                R::InputEmpty => {
                    if self.end {
                        r.done = true;
                        return None;
                    }
                }
                R::OutputFull => {
                    if r.out.len() < MAX_ROW_BYTES {
                        let grown = (r.out.len() * 2).min(MAX_ROW_BYTES);
                        r.out.resize(grown, 0);
                    } else {
                        // Past the limit: keep parsing to the row's end, dropping its bytes.
                        r.too_long = true;
                        r.out_len = 0;
                    }
                }
                R::OutputEndsFull => {
                    if r.ends.len() < MAX_CELLS {
                        let grown = (r.ends.len() * 2).min(MAX_CELLS);
                        r.ends.resize(grown, 0);
                    } else {
                        r.too_long = true;
                        r.ends_len = 0;
                    }
                }
                R::Record => {
                    if self.end && r.quoting == Quoting::Quoted {
                        let row = if r.header.is_some() { r.rows + 1 } else { 0 };
                        return r.fail(FileError::UnclosedQuote { row });
                    }
                    if let Some(item) = r.record() {
                        return Some(item);
                    }
                }
                R::End => {
                    r.done = true;
                    if r.header.is_none() {
                        return Some(Err(FileError::Empty { csv: true }));
                    }
                    return None;
                }
            }
        }
    }
}

/// Reads a JSONL file (one JSON object a line, UTF-8) chunk by chunk.
///
/// Rows are numbered by line, from 1. A line ends at `\n` (a `\r` before it is dropped); blank
/// lines (anywhere, including a trailing one) are skipped but counted, so a number is always the
/// line's. A leading UTF-8 BOM is dropped.
#[derive(Debug)]
pub struct JsonlReader {
    schema: &'static Schema,
    bom: BomStripper,
    line: Vec<u8>,
    too_long: bool,
    lines: u64,
    rows: u64,
    done: bool,
}

impl JsonlReader {
    /// A reader of rows of `schema`.
    pub fn new(schema: &'static Schema) -> Self {
        Self { schema, bom: BomStripper::new(), line: Vec::new(), too_long: false, lines: 0, rows: 0, done: false }
    }

    /// Non-blank lines read so far.
    pub fn rows_read(&self) -> u64 {
        self.rows
    }

    /// Bytes held in buffers: stays under [`MAX_ROW_BYTES`] plus a few KiB, whatever the file.
    pub fn memory_in_use(&self) -> usize {
        self.line.capacity()
    }

    /// The rows completed by `chunk` (the next bytes of the file). Drain the iterator before the
    /// next call: what it does not yield is lost.
    pub fn feed<'a>(&'a mut self, chunk: &'a [u8]) -> JsonlRows<'a> {
        JsonlRows { reader: self, input: chunk, end: false, stripped: false }
    }

    /// The last row (a final line without `\n`), and [`FileError::Empty`] for a file without a
    /// non-blank line.
    pub fn finish(&mut self) -> JsonlRows<'_> {
        JsonlRows { reader: self, input: &[], end: true, stripped: false }
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.too_long || self.line.len() + bytes.len() > MAX_ROW_BYTES {
            self.too_long = true;
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(bytes);
        }
    }

    /// The line just completed; `None` for a blank one.
    fn line_done(&mut self) -> Option<Item> {
        self.lines += 1;
        let row = self.lines;
        let too_long = std::mem::take(&mut self.too_long);
        if too_long {
            self.rows += 1;
            let message = format!("the line is longer than {MAX_ROW_BYTES} bytes");
            return Some(Ok((row, Err(vec![RowError::validation(None, message)]))));
        }
        let mut bytes = &self.line[..];
        if let Some(rest) = bytes.strip_suffix(b"\r") {
            bytes = rest;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            self.done = true;
            return Some(Err(FileError::NotUtf8 { row }));
        };
        let text = text.trim();
        if text.is_empty() {
            self.line.clear();
            return None;
        }
        self.rows += 1;
        let result = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => self.schema.row_from_object(object),
            Ok(_) => Err(vec![RowError::validation(None, "the line is not a JSON object")]),
            Err(e) => Err(vec![RowError::validation(None, format!("the line is not JSON ({e})"))]),
        };
        self.line.clear();
        if self.line.capacity() > SETTLED_BUFFER {
            // One long line does not keep its buffer for the rest of the file.
            self.line.shrink_to(SETTLED_BUFFER);
        }
        Some(Ok((row, result)))
    }
}

/// The rows a chunk completes ([`JsonlReader::feed`], [`JsonlReader::finish`]).
#[derive(Debug)]
pub struct JsonlRows<'a> {
    reader: &'a mut JsonlReader,
    input: &'a [u8],
    end: bool,
    stripped: bool,
}

impl Iterator for JsonlRows<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        let r = &mut *self.reader;
        if r.done {
            return None;
        }
        if !self.stripped {
            self.stripped = true;
            let stripped = if self.end { r.bom.finish().map(|()| self.input) } else { r.bom.strip(self.input) };
            match stripped {
                Ok(input) => self.input = input,
                Err(e) => {
                    r.done = true;
                    return Some(Err(e));
                }
            }
        }
        while let Some(at) = self.input.iter().position(|&b| b == b'\n') {
            let (line, rest) = (&self.input[..at], &self.input[at + 1..]);
            self.input = rest;
            r.push(line);
            if let Some(item) = r.line_done() {
                return Some(item);
            }
        }
        if !self.end {
            let rest = std::mem::take(&mut self.input);
            r.push(rest);
            return None;
        }
        r.done = true;
        if !r.line.is_empty() || r.too_long {
            if let Some(item) = r.line_done() {
                return Some(item);
            }
        }
        (r.rows == 0).then_some(Err(FileError::Empty { csv: false }))
    }
}

/// A reader of either format, for code that takes both.
#[derive(Debug)]
#[expect(clippy::large_enum_variant, reason = "one reader a job, made once and never moved in a loop")]
pub enum RowReader {
    /// CSV.
    Csv(CsvReader),
    /// JSONL.
    Jsonl(JsonlReader),
}

impl RowReader {
    /// A reader of `resource` rows in `format`.
    pub fn new(format: Format, resource: ImportResource) -> Self {
        match format {
            Format::Csv => Self::Csv(CsvReader::new(resource.schema())),
            Format::Jsonl => Self::Jsonl(JsonlReader::new(resource.schema())),
        }
    }

    /// See [`CsvReader::feed`] and [`JsonlReader::feed`].
    pub fn feed<'a>(&'a mut self, chunk: &'a [u8]) -> Rows<'a> {
        match self {
            Self::Csv(r) => Rows::Csv(r.feed(chunk)),
            Self::Jsonl(r) => Rows::Jsonl(r.feed(chunk)),
        }
    }

    /// See [`CsvReader::finish`] and [`JsonlReader::finish`].
    pub fn finish(&mut self) -> Rows<'_> {
        match self {
            Self::Csv(r) => Rows::Csv(r.finish()),
            Self::Jsonl(r) => Rows::Jsonl(r.finish()),
        }
    }

    /// Rows read so far (data rows, or non-blank lines).
    pub fn rows_read(&self) -> u64 {
        match self {
            Self::Csv(r) => r.rows_read(),
            Self::Jsonl(r) => r.rows_read(),
        }
    }

    /// Bytes held in buffers.
    pub fn memory_in_use(&self) -> usize {
        match self {
            Self::Csv(r) => r.memory_in_use(),
            Self::Jsonl(r) => r.memory_in_use(),
        }
    }
}

/// The rows of [`RowReader::feed`] or [`RowReader::finish`].
#[derive(Debug)]
pub enum Rows<'a> {
    /// From a CSV reader.
    Csv(CsvRows<'a>),
    /// From a JSONL reader.
    Jsonl(JsonlRows<'a>),
}

impl Iterator for Rows<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        match self {
            Self::Csv(rows) => rows.next(),
            Self::Jsonl(rows) => rows.next(),
        }
    }
}
