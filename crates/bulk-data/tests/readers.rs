//! The row readers against good and bad files (issue 51, item 5), fed in chunks of every size.

use bulk_data::read::Item;
use bulk_data::{FileError, Format, ImportResource, RowReader, MAX_ROW_BYTES};
use serde_json::{json, Value};

/// Every item of `file` read as `format` rows of `resource`, fed `chunk` bytes at a time.
fn read(format: Format, resource: ImportResource, file: &[u8], chunk: usize) -> Vec<Item> {
    let mut reader = RowReader::new(format, resource);
    let mut items = Vec::new();
    for piece in file.chunks(chunk.max(1)) {
        items.extend(reader.feed(piece));
    }
    items.extend(reader.finish());
    // Nothing more once finished.
    assert_eq!(reader.finish().count(), 0);
    items
}

/// Reads `file` in chunks of every size from 1 to 17 and whole; all readings must agree.
fn read_every_way(format: Format, resource: ImportResource, file: &[u8]) -> Vec<Item> {
    let whole = read(format, resource, file, file.len());
    for chunk in 1..=17 {
        assert_eq!(read(format, resource, file, chunk), whole, "chunks of {chunk}");
    }
    whole
}

fn csv(resource: ImportResource, file: &str) -> Vec<Item> {
    read_every_way(Format::Csv, resource, file.as_bytes())
}

fn jsonl(resource: ImportResource, file: &str) -> Vec<Item> {
    read_every_way(Format::Jsonl, resource, file.as_bytes())
}

/// The good row numbered `n`.
fn good(items: &[Item], n: u64) -> Value {
    let (_, row) = items.iter().filter_map(|i| i.as_ref().ok()).find(|(number, _)| *number == n).expect("row n");
    Value::Object(row.clone().expect("a good row"))
}

/// The messages of row `n`'s errors.
fn bad(items: &[Item], n: u64) -> Vec<(Option<String>, String)> {
    let (_, row) = items.iter().filter_map(|i| i.as_ref().ok()).find(|(number, _)| *number == n).expect("row n");
    row.clone().expect_err("a bad row").into_iter().map(|e| (e.field, e.message)).collect()
}

fn file_error(items: &[Item]) -> FileError {
    let errors: Vec<_> = items.iter().filter_map(|i| i.clone().err()).collect();
    assert_eq!(errors.len(), 1, "exactly one file error, last: {items:?}");
    assert!(items.last().expect("items").is_err(), "the file error ends the reading");
    errors[0].clone()
}

const CUSTOMERS: ImportResource = ImportResource::Customers;

#[test]
fn a_good_csv_file_with_quotes_line_breaks_crlf_and_a_bom() {
    let file = "\u{feff}name,email,tags,phone,created_at\r\n\
                \"Smith, Jo\",jo@example.com,vip;b2b,'+380441234567,2026-01-01T00:00:00Z\r\n\
                \r\n\
                \"Line\nbreak \"\"quoted\"\"\",lb@example.com,,,\n\
                Émile 東京,e@example.com,\"a\\;b\",,";
    let items = csv(CUSTOMERS, file);
    assert_eq!(items.len(), 3);
    assert_eq!(
        good(&items, 1),
        json!({"name": "Smith, Jo", "email": "jo@example.com", "tags": ["vip", "b2b"], "phone": "+380441234567"})
    );
    assert_eq!(good(&items, 2), json!({"name": "Line\nbreak \"quoted\"", "email": "lb@example.com"}));
    assert_eq!(good(&items, 3), json!({"name": "Émile 東京", "email": "e@example.com", "tags": ["a;b"]}));
}

#[test]
fn csv_bytes_that_are_not_utf8_are_a_file_error_naming_the_row() {
    let mut file = b"name,email\nAnn,ann@example.com\nB".to_vec();
    file.extend_from_slice(&[0xff, 0xfe]);
    file.extend_from_slice(b"b,bob@example.com\nCat,cat@example.com\n");
    let items = read_every_way(Format::Csv, CUSTOMERS, &file);
    assert_eq!(good(&items, 1)["name"], "Ann");
    let error = file_error(&items);
    assert_eq!(error, FileError::NotUtf8 { row: 2 });
    assert_eq!(error.to_string(), "row 2 is not UTF-8 text; save the file as UTF-8");
    assert_eq!(items.len(), 2, "nothing after the error");

    let latin1 = b"name,email\nJos\xe9,jose@example.com\n";
    assert_eq!(file_error(&read_every_way(Format::Csv, CUSTOMERS, latin1)), FileError::NotUtf8 { row: 1 });
    let header = b"n\xe4me,email\n";
    let error = file_error(&read_every_way(Format::Csv, CUSTOMERS, header));
    assert_eq!(error.to_string(), "the header row is not UTF-8 text; save the file as UTF-8");
}

#[test]
fn a_ragged_csv_row_is_a_row_error_and_the_next_rows_are_read() {
    let items = csv(CUSTOMERS, "name,email\nAnn,ann@example.com,extra\nBob\nCat,cat@example.com\n");
    assert_eq!(bad(&items, 1), [(None, "the row has 3 cells where the header has 2 columns".to_owned())]);
    assert_eq!(bad(&items, 2), [(None, "the row has 1 cells where the header has 2 columns".to_owned())]);
    assert_eq!(good(&items, 3)["name"], "Cat");
}

#[test]
fn an_unclosed_quote_is_a_file_error_naming_the_row_that_opened_it() {
    let items = csv(CUSTOMERS, "name,email\nAnn,ann@example.com\n\"Bob,bob@example.com\nCat,cat@example.com\n");
    assert_eq!(good(&items, 1)["name"], "Ann");
    let error = file_error(&items);
    assert_eq!(error, FileError::UnclosedQuote { row: 2 });
    assert_eq!(error.to_string(), "row 2 opens a quoted cell (\") that is never closed");
    // A closed quote at the very end is fine, and so is a quote inside an unquoted cell.
    let items = csv(CUSTOMERS, "name,email\n\"Ann \"\"A\"\"\",a@example.com\nO\"Neil,o@example.com");
    assert_eq!(good(&items, 1)["name"], "Ann \"A\"");
    assert_eq!(good(&items, 2)["name"], "O\"Neil");
    assert_eq!(file_error(&csv(CUSTOMERS, "name,\"email\n")), FileError::UnclosedQuote { row: 0 });
}

#[test]
fn unknown_and_missing_columns_are_one_header_error_naming_them_all() {
    let items = csv(CUSTOMERS, "nmae,email,shoe_size\nAnn,ann@example.com,42\n");
    let FileError::Header(error) = file_error(&items) else { panic!("a header error") };
    assert_eq!(error.unknown, ["nmae", "shoe_size"]);
    assert_eq!(error.missing, ["name"]);
    assert_eq!(items.len(), 1, "no row is read under a bad header");
}

#[test]
fn an_empty_file_is_a_file_error_and_a_header_alone_is_zero_rows() {
    for file in ["", "\n\n", "\r\n", "\u{feff}"] {
        assert_eq!(file_error(&csv(CUSTOMERS, file)), FileError::Empty { csv: true }, "{file:?}");
        assert_eq!(file_error(&jsonl(CUSTOMERS, file)), FileError::Empty { csv: false }, "{file:?}");
    }
    assert_eq!(file_error(&jsonl(CUSTOMERS, "  \n\t\n")), FileError::Empty { csv: false });
    assert_eq!(FileError::Empty { csv: true }.to_string(), "the file is empty: a CSV file needs a header row");
    assert!(csv(CUSTOMERS, "name,email\r\n").is_empty());
    // Half a byte-order mark is not UTF-8.
    assert_eq!(file_error(&read(Format::Csv, CUSTOMERS, b"\xef\xbb", 1)), FileError::NotUtf8 { row: 0 });
}

#[test]
fn a_formula_cell_is_imported_as_the_text_it_is() {
    let items = csv(ImportResource::Companies, "name,industry\n=HYPERLINK(\"http://evil\"),@SUM(A1)\n'=1+1,'-x\n");
    assert_eq!(good(&items, 1), json!({"name": "=HYPERLINK(\"http://evil\")", "industry": "@SUM(A1)"}));
    // Neutralised by an export: the `'` comes off.
    assert_eq!(good(&items, 2), json!({"name": "=1+1", "industry": "-x"}));
}

#[test]
fn a_cell_that_does_not_parse_names_its_field() {
    let items = csv(ImportResource::Products, "sku,name,price,weight_grams\nA-1,Chair,12.50,x\n");
    let fields: Vec<_> = bad(&items, 1).into_iter().map(|(f, _)| f.expect("a field")).collect();
    assert_eq!(fields, ["price", "weight_grams"]);
    let items = csv(ImportResource::Inventory, "sku,location_code,quantity_on_hand,max_stock\nA-1,WH,ten,-\n");
    let errors = bad(&items, 1);
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0], (Some("quantity_on_hand".to_owned()), "must be a whole number (64-bit)".to_owned()));
}

#[test]
fn an_over_long_row_is_a_row_error_and_reading_goes_on() {
    let long = "x".repeat(MAX_ROW_BYTES + 10);
    let csv_file = format!("name,email\n{long},a@example.com\nBob,bob@example.com\n");
    let items = read(Format::Csv, CUSTOMERS, csv_file.as_bytes(), 64 * 1024);
    assert_eq!(items.len(), 2);
    assert!(bad(&items, 1)[0].1.starts_with("the row is longer than"));
    assert_eq!(good(&items, 2)["name"], "Bob");

    let jsonl_file = format!("{{\"name\":\"{long}\"}}\n{{\"name\":\"Bob\",\"email\":\"bob@example.com\"}}\n");
    let items = read(Format::Jsonl, CUSTOMERS, jsonl_file.as_bytes(), 64 * 1024);
    assert_eq!(items.len(), 2);
    assert!(bad(&items, 1)[0].1.starts_with("the line is longer than"));
    assert_eq!(good(&items, 2)["name"], "Bob");

    let many_cells = format!("name,email\n{}\nBob,bob@example.com\n", ",".repeat(5000));
    let items = read(Format::Csv, CUSTOMERS, many_cells.as_bytes(), 4096);
    assert!(bad(&items, 1)[0].1.contains("cells"));
    assert_eq!(good(&items, 2)["name"], "Bob");
}

#[test]
fn a_good_jsonl_file_with_crlf_blank_lines_and_no_final_newline() {
    let file = "{\"name\":\"Ann\",\"email\":\"ann@example.com\",\"tags\":[\"vip\"],\"created_at\":\"2026-01-01T00:00:00Z\"}\r\n\
                \r\n\
                {\"name\":\"=1+1\",\"email\":\"b@example.com\",\"phone\":null}";
    let items = jsonl(CUSTOMERS, file);
    assert_eq!(items.len(), 2);
    assert_eq!(good(&items, 1), json!({"name": "Ann", "email": "ann@example.com", "tags": ["vip"]}));
    // Line numbers: the blank line 2 counts.
    assert_eq!(good(&items, 3), json!({"name": "=1+1", "email": "b@example.com", "phone": null}));
    assert_eq!(jsonl(CUSTOMERS, "{\"name\":\"A\"}\n\n").len(), 1, "a trailing blank line is fine");
}

#[test]
fn a_jsonl_line_that_is_not_an_object_is_a_row_error() {
    let file = "[1,2]\n42\n{\"name\":\n\"text\"\n{\"name\":\"Ok\"}\n{\"name\":\"x\",\"nickname\":\"y\"}\n";
    let items = jsonl(CUSTOMERS, file);
    assert_eq!(items.len(), 6);
    assert_eq!(bad(&items, 1), [(None, "the line is not a JSON object".to_owned())]);
    assert_eq!(bad(&items, 2), [(None, "the line is not a JSON object".to_owned())]);
    assert!(bad(&items, 3)[0].1.starts_with("the line is not JSON"));
    assert_eq!(bad(&items, 4), [(None, "the line is not a JSON object".to_owned())]);
    assert_eq!(good(&items, 5), json!({"name": "Ok"}));
    assert_eq!(bad(&items, 6), [(Some("nickname".to_owned()), "unknown field".to_owned())]);
}

#[test]
fn jsonl_bytes_that_are_not_utf8_are_a_file_error_naming_the_line() {
    let file = b"{\"name\":\"Ann\"}\n\n{\"name\":\"\xff\"}\n{\"name\":\"Cat\"}\n";
    let items = read_every_way(Format::Jsonl, CUSTOMERS, file);
    assert_eq!(items.len(), 2);
    assert_eq!(file_error(&items), FileError::NotUtf8 { row: 3 });
}

#[test]
fn an_inventory_stock_take_names_its_product_and_location_either_way() {
    let file = "sku,product_id,location_code,location_id,quantity_on_hand,reorder_point\n\
                A-1,,WH-1,,40,5\n\
                ,0190a0b0-0000-7000-8000-000000000001,,0190a0b0-0000-7000-8000-000000000002,0,\n\
                ,,WH-1,,3,\n";
    let items = csv(ImportResource::Inventory, file);
    assert_eq!(
        good(&items, 1),
        json!({"sku": "A-1", "location_code": "WH-1", "quantity_on_hand": 40, "reorder_point": 5})
    );
    assert_eq!(good(&items, 2)["quantity_on_hand"], 0);
    assert_eq!(bad(&items, 3), [(Some("sku".to_owned()), "one of sku, product_id is required".to_owned())]);
}

/// Feeds `rows` generated rows in chunks of about 64 KiB without ever holding the file, and
/// answers (good rows, bad rows, the reader's largest buffer).
fn stream(format: Format, header: &str, rows: usize, row: impl Fn(usize) -> String) -> (u64, u64, usize) {
    let mut reader = RowReader::new(format, CUSTOMERS);
    let (mut good, mut bad, mut peak) = (0, 0, 0);
    let mut count = |items: &mut dyn Iterator<Item = Item>| {
        for item in items {
            match item.expect("no file error") {
                (_, Ok(_)) => good += 1,
                (_, Err(_)) => bad += 1,
            }
        }
    };
    let mut chunk = header.to_owned();
    for i in 0..rows {
        chunk.push_str(&row(i));
        if chunk.len() >= 64 * 1024 {
            count(&mut reader.feed(chunk.as_bytes()));
            peak = peak.max(reader.memory_in_use());
            chunk.clear();
        }
    }
    count(&mut reader.feed(chunk.as_bytes()));
    count(&mut reader.finish());
    peak = peak.max(reader.memory_in_use());
    (good, bad, peak)
}

#[test]
fn a_hundred_thousand_bad_rows_stream_through_with_flat_memory() {
    let (good, bad, peak) = stream(Format::Csv, "name,email\n", 100_000, |i| format!("ragged {i}\n"));
    assert_eq!((good, bad), (0, 100_000));
    assert!(peak <= 16 * 1024, "the reader kept {peak} bytes");

    let (good, bad, peak) = stream(Format::Jsonl, "", 100_000, |i| format!("[{i}]\n"));
    assert_eq!((good, bad), (0, 100_000));
    assert!(peak <= 16 * 1024, "the reader kept {peak} bytes");

    let (good, bad, _) = stream(Format::Csv, "name,email\n", 100_000, |i| {
        if i % 2 == 0 {
            format!("n{i},e{i}@example.com\n")
        } else {
            format!("=bad,{i},x\n")
        }
    });
    assert_eq!((good, bad), (50_000, 50_000));
}

#[test]
fn a_file_error_stops_the_reader_for_good() {
    let mut reader = RowReader::new(Format::Csv, CUSTOMERS);
    let items: Vec<_> = reader.feed(b"nope\n").collect();
    assert!(matches!(items[..], [Err(FileError::Header(_))]));
    assert_eq!(reader.feed(b"Ann,a@example.com\n").count(), 0);
    assert_eq!(reader.finish().count(), 0);
}

#[test]
fn one_long_row_does_not_keep_its_buffer() {
    for format in [Format::Csv, Format::Jsonl] {
        let mut reader = RowReader::new(format, CUSTOMERS);
        let long = "x".repeat(MAX_ROW_BYTES / 2);
        let file = match format {
            Format::Csv => format!("name,email\n{long},a@example.com\nBob,b@example.com\nCat,c@example.com\n"),
            Format::Jsonl => format!("{{\"name\":\"{long}\"}}\n{{\"name\":\"Bob\"}}\n{{\"name\":\"Cat\"}}\n"),
        };
        let mut rows = 0;
        for piece in file.as_bytes().chunks(8192) {
            rows += reader.feed(piece).map(|item| assert!(item.expect("readable").1.is_ok())).count();
        }
        rows += reader.finish().count();
        assert_eq!(rows, 3);
        assert!(reader.memory_in_use() <= 80 * 1024, "{format:?} kept {} bytes", reader.memory_in_use());
    }
}
