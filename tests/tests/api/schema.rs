//! Guards a reviewer would otherwise have to remember, checked against the real database:
//!
//! - [`foreign_keys`]: every foreign key has an index whose leading columns are the key's columns;
//! - [`table_macros`]: every diesel `table!` in `crates/` matches the migrated database column by
//!   column (name, SQL type, nullability), and declares every column of its table;
//! - [`migrations`]: every migration reverts cleanly, leaves nothing behind, and applies again to the
//!   same schema;
//! - [`constraint_tables`]: every constraint name the storage mapper's tables know exists in the
//!   migrated database (a renamed constraint would silently lose its field in `details`);
//! - [`hot_columns`]: no index reads the columns the order flow rewrites on every stock change, so
//!   those updates stay heap-only (HOT) and write no index entry;
//! - [`gin_pending_lists`]: every GIN index merges its pending list in short steps.
//!
//! Each guard's checking function is a plain function with unit tests that feed it a deliberately
//! broken input, so the guard is proven to fail without a scratch commit.

/// Every foreign key has an index whose leading key columns are exactly the key's columns (in any
/// order), so deleting or re-keying a referenced row does not scan the referencing table. A
/// partial index counts; `INCLUDE` columns and expressions do not.
mod foreign_keys {
    use diesel::sql_types::{Array, Text};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    #[derive(Debug, Clone, diesel::QueryableByName)]
    pub struct ForeignKey {
        #[diesel(sql_type = Text)]
        pub table_name: String,
        #[diesel(sql_type = Text)]
        pub constraint_name: String,
        #[diesel(sql_type = Array<Text>)]
        pub columns: Vec<String>,
    }

    /// An index's key columns in order; an expression is an empty name.
    #[derive(Debug, Clone, diesel::QueryableByName)]
    pub struct Index {
        #[diesel(sql_type = Text)]
        pub table_name: String,
        #[diesel(sql_type = Array<Text>)]
        pub columns: Vec<String>,
    }

    const FOREIGN_KEYS: &str = "
        SELECT t.relname::text AS table_name, c.conname::text AS constraint_name,
               ARRAY(SELECT a.attname::text
                     FROM unnest(c.conkey) WITH ORDINALITY AS k (attnum, ord)
                     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
                     ORDER BY k.ord) AS columns
        FROM pg_constraint c
        JOIN pg_class t ON t.oid = c.conrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE c.contype = 'f' AND n.nspname = 'public'
        ORDER BY 1, 2";

    const INDEXES: &str = "
        SELECT t.relname::text AS table_name,
               ARRAY(SELECT coalesce(a.attname::text, '')
                     FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k (attnum, ord)
                     LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                     WHERE k.ord <= i.indnkeyatts
                     ORDER BY k.ord) AS columns
        FROM pg_index i
        JOIN pg_class t ON t.oid = i.indrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = 'public' AND i.indisvalid
        ORDER BY 1, 2";

    /// The foreign keys no index serves, one line each.
    pub fn foreign_keys_without_index(foreign_keys: &[ForeignKey], indexes: &[Index]) -> Vec<String> {
        foreign_keys
            .iter()
            .filter(|fk| {
                !indexes.iter().any(|index| {
                    index.table_name == fk.table_name
                        && index.columns.len() >= fk.columns.len()
                        && fk.columns.iter().all(|column| index.columns[..fk.columns.len()].contains(column))
                })
            })
            .map(|fk| {
                format!(
                    "{}.{} ({}): no index starts with these columns; add `CREATE INDEX {}_{}_idx ON {} ({})` in a new migration",
                    fk.table_name,
                    fk.columns.join(", "),
                    fk.constraint_name,
                    fk.table_name,
                    fk.columns.join("_"),
                    fk.table_name,
                    fk.columns.join(", "),
                )
            })
            .collect()
    }

    #[actix_web::test]
    async fn every_foreign_key_has_an_index() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        let foreign_keys: Vec<ForeignKey> =
            diesel::sql_query(FOREIGN_KEYS).load(&mut conn).await.expect("foreign keys");
        let indexes: Vec<Index> = diesel::sql_query(INDEXES).load(&mut conn).await.expect("indexes");
        assert!(foreign_keys.len() > 20, "the catalogue query found only {} foreign keys", foreign_keys.len());
        let missing = foreign_keys_without_index(&foreign_keys, &indexes);
        assert!(missing.is_empty(), "foreign keys without an index:\n  {}", missing.join("\n  "));
    }

    fn fk(table: &str, columns: &[&str]) -> ForeignKey {
        ForeignKey {
            table_name: table.to_owned(),
            constraint_name: format!("{table}_{}_fkey", columns.join("_")),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn index(table: &str, columns: &[&str]) -> Index {
        Index { table_name: table.to_owned(), columns: columns.iter().map(|c| (*c).to_owned()).collect() }
    }

    #[test]
    fn an_unindexed_foreign_key_is_reported() {
        let keys = [fk("profiles", &["country"]), fk("profiles", &["user_id"]), fk("lines", &["order_id", "n"])];
        let indexes = [
            // Leading column: serves `profiles.user_id`.
            index("profiles", &["user_id", "created_at"]),
            // `country` only second, or on another table: serves nothing.
            index("profiles", &["created_at", "country"]),
            index("contacts", &["country"]),
            // A composite key is served by its columns in any order.
            index("lines", &["n", "order_id", "id"]),
        ];
        let missing = foreign_keys_without_index(&keys, &indexes);
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(missing[0].starts_with("profiles.country (profiles_country_fkey)"), "{missing:?}");
        assert!(missing[0].contains("CREATE INDEX profiles_country_idx ON profiles (country)"), "{missing:?}");
    }

    #[test]
    fn an_expression_or_a_shorter_index_does_not_count() {
        let keys = [fk("t", &["a", "b"]), fk("t", &["c"])];
        let indexes = [index("t", &["a"]), index("t", &["", "c"])];
        assert_eq!(foreign_keys_without_index(&keys, &indexes).len(), 2);
    }
}

/// Every diesel `table!` under `crates/*/src` matches the migrated database: each declared column
/// exists with a compatible SQL type and the same nullability, and each column of a declared table is
/// declared. The `table!` sources are read as text, so a new schema file is checked without being
/// listed here.
mod table_macros {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use diesel::sql_types::{Bool, Nullable, Text};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    /// Database columns a `table!` may leave out, each because the code relies on not mapping it.
    /// Empty: every table! declares all of its table's columns.
    const UNDECLARED_COLUMNS: &[(&str, &str)] = &[];

    /// Columns declared without `Nullable<…>` although PostgreSQL reports them nullable. PostgreSQL
    /// calls every generated column nullable unless it is declared `NOT NULL`; these are computed from
    /// `NOT NULL` columns by expressions that never yield NULL, so reading them as non-null is safe.
    const NOT_NULL_BY_CONSTRUCTION: &[(&str, &str)] = &[
        // CASE status … ELSE 3 END over a NOT NULL status (migrations/…_crm).
        ("customers", "status_rank"),
        // CASE tier … ELSE 3 END over a NOT NULL tier (migrations/…_crm).
        ("customers", "tier_rank"),
        // resource || ':' || action, both NOT NULL (migrations/…_identity).
        ("permissions", "name"),
    ];

    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct CodeColumn {
        /// The SQL name (`#[sql_name]` when present).
        pub name: String,
        /// The last path segment of the SQL type, without `Nullable<…>`; for an array, its element.
        pub sql_type: String,
        pub array: bool,
        pub nullable: bool,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct CodeTable {
        pub name: String,
        pub file: String,
        pub columns: Vec<CodeColumn>,
    }

    #[derive(Debug, Clone, diesel::QueryableByName)]
    pub struct DbColumn {
        #[diesel(sql_type = Text)]
        pub table_name: String,
        #[diesel(sql_type = Text)]
        pub column_name: String,
        /// `information_schema.columns.data_type`, e.g. `character varying` or `ARRAY`.
        #[diesel(sql_type = Text)]
        pub data_type: String,
        /// For an array, the element's data type.
        #[diesel(sql_type = Nullable<Text>)]
        pub element_type: Option<String>,
        #[diesel(sql_type = Bool)]
        pub nullable: bool,
    }

    const COLUMNS: &str = "
        SELECT c.table_name::text AS table_name, c.column_name::text AS column_name,
               c.data_type::text AS data_type, e.data_type::text AS element_type,
               c.is_nullable = 'YES' AS nullable
        FROM information_schema.columns c
        LEFT JOIN information_schema.element_types e
          ON (e.object_catalog, e.object_schema, e.object_name, e.object_type, e.collection_type_identifier)
           = (c.table_catalog, c.table_schema, c.table_name, 'TABLE', c.dtd_identifier)
        WHERE c.table_schema = 'public'
        ORDER BY c.table_name, c.ordinal_position";

    /// The `information_schema` data types a diesel SQL type may be read from; `None` for a type this
    /// guard does not know yet (extend the list).
    fn database_types(diesel_type: &str) -> Option<&'static [&'static str]> {
        // diesel's `Text`, `Varchar` and `Bpchar` are one type; `Bpchar` is written for `CHAR(n)`.
        const STRINGS: &[&str] = &["text", "character varying", "character"];
        Some(match diesel_type {
            "Text" | "Varchar" | "VarChar" => STRINGS,
            "Bpchar" => &["character"],
            "Uuid" => &["uuid"],
            "Int2" | "SmallInt" | "SmallSerial" => &["smallint"],
            "Int4" | "Integer" | "Serial" => &["integer"],
            "Int8" | "BigInt" | "Bigint" | "BigSerial" => &["bigint"],
            "Bool" => &["boolean"],
            "Timestamptz" => &["timestamp with time zone"],
            "Timestamp" => &["timestamp without time zone"],
            "Date" => &["date"],
            "Time" => &["time without time zone"],
            "Interval" => &["interval"],
            "Jsonb" => &["jsonb"],
            "Json" => &["json"],
            "Numeric" | "Decimal" => &["numeric"],
            "Float4" | "Float" => &["real"],
            "Float8" | "Double" => &["double precision"],
            "Binary" | "Bytea" => &["bytea"],
            "Inet" => &["inet"],
            "Cidr" => &["cidr"],
            "Oid" => &["oid"],
            "Money" => &["money"],
            _ => return None,
        })
    }

    // ---- a small reader of `table!` invocations ------------------------------------------------

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Token {
        Ident(String),
        Str(String),
        Punct(char),
    }

    /// Rust tokens, enough for `table!`: comments dropped, string literals kept whole.
    fn tokenize(source: &str) -> Vec<Token> {
        let chars: Vec<char> = source.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            if c.is_whitespace() {
                i += 1;
            } else if c == '/' && next == Some('/') {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            } else if c == '/' && next == Some('*') {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            } else if c == '"' {
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    if let Some(&ch) = chars.get(i) {
                        text.push(ch);
                    }
                    i += 1;
                }
                i += 1;
                tokens.push(Token::Str(text));
            } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
                // A char literal ('x' or '\n'); a lifetime falls through to punctuation.
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            } else if c.is_alphanumeric() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                tokens.push(Token::Ident(chars[start..i].iter().collect()));
            } else {
                tokens.push(Token::Punct(c));
                i += 1;
            }
        }
        tokens
    }

    struct Parser<'a> {
        tokens: &'a [Token],
        pos: usize,
        file: &'a str,
    }

    /// A type as written: its last path segment and its one generic argument, if any.
    struct Ty {
        name: String,
        argument: Option<Box<Ty>>,
    }

    impl<'a> Parser<'a> {
        fn peek(&self) -> Option<&'a Token> {
            self.tokens.get(self.pos)
        }

        fn next(&mut self) -> Option<&'a Token> {
            let token = self.tokens.get(self.pos);
            self.pos += 1;
            token
        }

        fn at_punct(&self, c: char) -> bool {
            self.peek() == Some(&Token::Punct(c))
        }

        fn expect_punct(&mut self, c: char) -> Result<(), String> {
            match self.next() {
                Some(Token::Punct(p)) if *p == c => Ok(()),
                other => Err(format!("{}: expected `{c}` in table!, found {other:?}", self.file)),
            }
        }

        fn ident(&mut self) -> Result<String, String> {
            match self.next() {
                Some(Token::Ident(name)) => Ok(name.clone()),
                other => Err(format!("{}: expected a name in table!, found {other:?}", self.file)),
            }
        }

        /// `#[…]` attributes; returns the value of `sql_name = "…"` if one is present.
        fn attributes(&mut self) -> Result<Option<String>, String> {
            let mut sql_name = None;
            while self.at_punct('#') {
                self.pos += 1;
                self.expect_punct('[')?;
                let mut depth = 1;
                let mut inner = Vec::new();
                while depth > 0 {
                    let token = self.next().ok_or_else(|| format!("{}: unterminated attribute", self.file))?;
                    match token {
                        Token::Punct('[') => depth += 1,
                        Token::Punct(']') => depth -= 1,
                        _ => {}
                    }
                    inner.push(token);
                }
                if let [Token::Ident(key), Token::Punct('='), Token::Str(value), ..] = inner.as_slice() {
                    if key == "sql_name" {
                        sql_name = Some(value.clone());
                    }
                }
            }
            Ok(sql_name)
        }

        /// A path such as `diesel::sql_types::Nullable<Text>`.
        fn ty(&mut self) -> Result<Ty, String> {
            let mut name = self.ident()?;
            while self.at_punct(':') {
                self.expect_punct(':')?;
                self.expect_punct(':')?;
                name = self.ident()?;
            }
            let argument = if self.at_punct('<') {
                self.pos += 1;
                let argument = self.ty()?;
                self.expect_punct('>')?;
                Some(Box::new(argument))
            } else {
                None
            };
            Ok(Ty { name, argument })
        }

        fn column(&mut self) -> Result<CodeColumn, String> {
            let sql_name = self.attributes()?;
            let rust_name = self.ident()?;
            self.expect_punct('-')?;
            self.expect_punct('>')?;
            let mut ty = self.ty()?;
            let mut nullable = false;
            if ty.name == "Nullable" {
                nullable = true;
                ty = *ty.argument.ok_or_else(|| format!("{}: Nullable without a type", self.file))?;
            }
            let mut array = false;
            if ty.name == "Array" {
                array = true;
                ty = *ty.argument.ok_or_else(|| format!("{}: Array without a type", self.file))?;
                // An array's elements may be nullable; the column's nullability is what is checked.
                if ty.name == "Nullable" {
                    ty = *ty.argument.ok_or_else(|| format!("{}: Nullable without a type", self.file))?;
                }
            }
            if ty.argument.is_some() {
                return Err(format!("{}: {rust_name}: unsupported generic type {}<…>", self.file, ty.name));
            }
            if self.at_punct(',') {
                self.pos += 1;
            }
            Ok(CodeColumn { name: sql_name.unwrap_or(rust_name), sql_type: ty.name, array, nullable })
        }

        /// One table: `[#[sql_name = "…"]] [schema.]name (primary key) { columns }`.
        fn table(&mut self) -> Result<CodeTable, String> {
            let sql_name = self.attributes()?;
            let mut name = self.ident()?;
            if self.at_punct('.') {
                self.pos += 1;
                name = self.ident()?;
            }
            self.expect_punct('(')?;
            while !self.at_punct(')') {
                self.next().ok_or_else(|| format!("{}: unterminated primary key of {name}", self.file))?;
            }
            self.pos += 1;
            self.expect_punct('{')?;
            let mut columns = Vec::new();
            while !self.at_punct('}') {
                if self.peek().is_none() {
                    return Err(format!("{}: unterminated table! {name}", self.file));
                }
                columns.push(self.column()?);
            }
            self.pos += 1;
            Ok(CodeTable { name: sql_name.unwrap_or(name), file: self.file.to_owned(), columns })
        }
    }

    /// Every `table!` invocation in one Rust source file.
    pub fn parse_tables(file: &str, source: &str) -> Result<Vec<CodeTable>, String> {
        let tokens = tokenize(source);
        let mut tables = Vec::new();
        let mut i = 0;
        while i + 2 < tokens.len() {
            let opens = matches!(tokens[i + 2], Token::Punct('{') | Token::Punct('(') | Token::Punct('['));
            if tokens[i] == Token::Ident("table".into()) && tokens[i + 1] == Token::Punct('!') && opens {
                let (open, close) = match tokens[i + 2] {
                    Token::Punct('{') => ('{', '}'),
                    Token::Punct('(') => ('(', ')'),
                    _ => ('[', ']'),
                };
                let mut depth = 0;
                let mut end = i + 2;
                while end < tokens.len() {
                    if tokens[end] == Token::Punct(open) {
                        depth += 1;
                    } else if tokens[end] == Token::Punct(close) {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    end += 1;
                }
                let body = tokens.get(i + 3..end).ok_or_else(|| format!("{file}: unterminated table!"))?;
                let mut parser = Parser { tokens: body, pos: 0, file };
                while parser.peek().is_some() {
                    if parser.peek() == Some(&Token::Ident("use".into())) {
                        while parser.next().is_some_and(|t| *t != Token::Punct(';')) {}
                        continue;
                    }
                    tables.push(parser.table()?);
                }
                i = end;
            }
            i += 1;
        }
        Ok(tables)
    }

    /// Every difference between the `table!` declarations and the database, one line each.
    pub fn compare(
        code: &[CodeTable],
        database: &[DbColumn],
        undeclared_columns: &[(&str, &str)],
        not_null_by_construction: &[(&str, &str)],
    ) -> Vec<String> {
        let mut by_table: BTreeMap<&str, Vec<&DbColumn>> = BTreeMap::new();
        for column in database {
            by_table.entry(column.table_name.as_str()).or_default().push(column);
        }
        let mut problems = Vec::new();
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        let mut excuses_used = Vec::new();
        for table in code {
            let at = format!("{} in {}", table.name, table.file);
            if let Some(other) = seen.insert(&table.name, &table.file) {
                problems.push(format!("{at}: declared twice (also in {other})"));
            }
            let Some(db_columns) = by_table.get(table.name.as_str()) else {
                problems.push(format!("{at}: no such table in the migrated database"));
                continue;
            };
            for column in &table.columns {
                let here = format!("{}.{} in {}", table.name, column.name, table.file);
                let Some(db) = db_columns.iter().find(|c| c.column_name == column.name) else {
                    problems.push(format!("{here}: no such column in the database"));
                    continue;
                };
                let Some(accepted) = database_types(&column.sql_type) else {
                    problems.push(format!(
                        "{here}: unknown diesel type {} (extend `database_types` in tests/tests/api/schema.rs)",
                        column.sql_type
                    ));
                    continue;
                };
                let (db_type, written) = if column.array {
                    (db.element_type.as_deref().unwrap_or(""), format!("Array<{}>", column.sql_type))
                } else {
                    (db.data_type.as_str(), column.sql_type.clone())
                };
                if column.array != (db.data_type == "ARRAY") || !accepted.contains(&db_type) {
                    let db_written = match &db.element_type {
                        Some(element) if db.data_type == "ARRAY" => format!("{element}[]"),
                        _ => db.data_type.clone(),
                    };
                    problems.push(format!("{here}: declared {written}, the database has {db_written}"));
                }
                let key = (table.name.as_str(), column.name.as_str());
                if !column.nullable && db.nullable && not_null_by_construction.contains(&key) {
                    excuses_used.push(key);
                } else if column.nullable != db.nullable {
                    let (code_says, db_says) =
                        if column.nullable { ("Nullable<…>", "NOT NULL") } else { ("not Nullable<…>", "nullable") };
                    problems.push(format!("{here}: declared {code_says}, the database column is {db_says}"));
                }
            }
            for db in db_columns {
                let key = (table.name.as_str(), db.column_name.as_str());
                if table.columns.iter().any(|c| c.name == db.column_name) {
                    continue;
                }
                if undeclared_columns.contains(&key) {
                    excuses_used.push(key);
                } else {
                    problems.push(format!(
                        "{}.{} ({}): in the database but not declared in the table! of {}",
                        table.name, db.column_name, db.data_type, table.file
                    ));
                }
            }
        }
        for (table, column) in undeclared_columns.iter().chain(not_null_by_construction) {
            if !excuses_used.contains(&(*table, *column)) {
                problems
                    .push(format!("{table}.{column}: allow-listed, but nothing needs it any more; remove the entry"));
            }
        }
        problems
    }

    fn workspace_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }

    /// Every `table!` of every crate's `src/`.
    fn code_tables() -> Vec<CodeTable> {
        let root = workspace_root();
        let mut files = Vec::new();
        for krate in std::fs::read_dir(root.join("crates")).expect("crates/").flatten() {
            rust_files(&krate.path().join("src"), &mut files);
        }
        files.sort();
        let mut tables = Vec::new();
        for path in files {
            let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if !source.contains("table!") {
                continue;
            }
            let shown = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            tables.extend(parse_tables(&shown, &source).unwrap_or_else(|e| panic!("{e}")));
        }
        tables
    }

    #[actix_web::test]
    async fn diesel_tables_match_the_migrated_database() {
        let code = code_tables();
        assert!(code.len() >= 25, "found only {} table! declarations under crates/", code.len());
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        let columns: Vec<DbColumn> = diesel::sql_query(COLUMNS).load(&mut conn).await.expect("columns");
        let problems = compare(&code, &columns, UNDECLARED_COLUMNS, NOT_NULL_BY_CONSTRUCTION);
        assert!(
            problems.is_empty(),
            "diesel table! declarations differ from the migrated database:\n  {}",
            problems.join("\n  ")
        );
    }

    const SAMPLE: &str = r#"
        //! A schema file.
        use crate::schema::users;

        diesel::table! {
            /// Comments are ignored, including `table! { x (y) { z -> W } }` in them.
            accounts (id) {
                id -> Uuid,
                #[sql_name = "type"]
                account_type -> diesel::sql_types::Varchar,
                #[max_length = 2]
                country -> Nullable<Bpchar>,
                tags -> Array<Text>,
                parent -> Nullable<Uuid>
            }
        }

        diesel::joinable!(accounts -> users (id));
        diesel::allow_tables_to_appear_in_same_query!(accounts, users);
    "#;

    fn db_column(column: &str, data_type: &str, nullable: bool) -> DbColumn {
        let (data_type, element_type) = match data_type.strip_suffix("[]") {
            Some(element) => ("ARRAY".to_owned(), Some(element.to_owned())),
            None => (data_type.to_owned(), None),
        };
        DbColumn { table_name: "accounts".into(), column_name: column.into(), data_type, element_type, nullable }
    }

    fn sample_database() -> Vec<DbColumn> {
        vec![
            db_column("id", "uuid", false),
            db_column("type", "character varying", false),
            db_column("country", "character", true),
            db_column("tags", "text[]", false),
            db_column("parent", "uuid", true),
        ]
    }

    #[test]
    fn table_macros_are_read_with_sql_names_types_and_nullability() {
        let tables = parse_tables("sample.rs", SAMPLE).expect("parses");
        assert_eq!(tables.len(), 1);
        let table = &tables[0];
        assert_eq!(table.name, "accounts");
        let read: Vec<_> =
            table.columns.iter().map(|c| (c.name.as_str(), c.sql_type.as_str(), c.array, c.nullable)).collect();
        assert_eq!(
            read,
            [
                ("id", "Uuid", false, false),
                ("type", "Varchar", false, false),
                ("country", "Bpchar", false, true),
                ("tags", "Text", true, false),
                ("parent", "Uuid", false, true),
            ]
        );
        assert_eq!(compare(&tables, &sample_database(), &[], &[]), Vec::<String>::new());
    }

    #[test]
    fn a_wrong_type_or_nullability_is_reported() {
        let broken = SAMPLE
            .replace("id -> Uuid", "id -> Int4")
            .replace("tags -> Array<Text>", "tags -> Array<Uuid>")
            .replace("parent -> Nullable<Uuid>", "parent -> Uuid");
        let tables = parse_tables("sample.rs", &broken).expect("parses");
        let problems = compare(&tables, &sample_database(), &[], &[]);
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(
            problems[0].contains("accounts.id in sample.rs: declared Int4, the database has uuid"),
            "{problems:#?}"
        );
        assert!(problems[1].contains("declared Array<Uuid>, the database has text[]"), "{problems:#?}");
        assert!(problems[2].contains("accounts.parent in sample.rs: declared not Nullable<…>"), "{problems:#?}");
        // An explicit allow-list entry excuses a non-null declaration, and only that.
        assert_eq!(compare(&tables, &sample_database(), &[], &[("accounts", "parent")]).len(), 2);
    }

    #[test]
    fn missing_columns_and_tables_are_reported_both_ways() {
        let tables = parse_tables("sample.rs", SAMPLE).expect("parses");
        let mut database = sample_database();
        database.retain(|c| c.column_name != "country");
        database.push(db_column("added_later", "bigint", true));
        let problems = compare(&tables, &database, &[], &[]);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[0].contains("accounts.country in sample.rs: no such column"), "{problems:#?}");
        assert!(
            problems[1].contains("accounts.added_later (bigint): in the database but not declared"),
            "{problems:#?}"
        );
        assert_eq!(compare(&tables, &database, &[("accounts", "added_later")], &[]).len(), 1);

        let problems = compare(&tables, &[], &[], &[]);
        assert_eq!(problems, ["accounts in sample.rs: no such table in the migrated database"]);
    }

    #[test]
    fn a_stale_allow_list_entry_is_reported() {
        let tables = parse_tables("sample.rs", SAMPLE).expect("parses");
        let problems = compare(&tables, &sample_database(), &[("accounts", "tags")], &[("accounts", "id")]);
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems.iter().all(|p| p.contains("nothing needs it any more")), "{problems:#?}");
    }

    #[test]
    fn an_unknown_diesel_type_is_reported_not_ignored() {
        let tables = parse_tables("sample.rs", &SAMPLE.replace("id -> Uuid", "id -> Ltree")).expect("parses");
        let problems = compare(&tables, &sample_database(), &[], &[]);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(problems[0].contains("unknown diesel type Ltree"), "{problems:#?}");
    }
}

/// Every migration reverts cleanly, in order, to an empty schema, and applies again to the same
/// schema as the first time (on a fresh database of its own, not the template clone).
mod migrations {
    use std::path::PathBuf;

    use diesel::migration::MigrationSource;
    use diesel::pg::Pg;
    use diesel::sql_types::Text;
    use diesel::{Connection, RunQueryDsl};
    use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
    use diesel_async::AsyncPgConnection;
    use diesel_migrations::{FileBasedMigrations, MigrationHarness};
    use tally_tests::TestDb;

    type SyncConnection = AsyncConnectionWrapper<AsyncPgConnection>;

    #[derive(diesel::QueryableByName)]
    struct Item {
        #[diesel(sql_type = Text)]
        item: String,
    }

    /// Objects of the public schema not owned by an extension (`pg_trgm`'s functions live there),
    /// leaving out diesel's own bookkeeping table.
    const LEFTOVERS: &str = "
        SELECT format('%s %s', CASE c.relkind WHEN 'r' THEN 'table' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence'
                                              WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
                                              ELSE 'relation' END, c.relname) AS item
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relname NOT LIKE '\\_\\_diesel\\_schema\\_migrations%'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                          WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
        UNION ALL
        SELECT format('function %s', p.oid::regprocedure) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                          WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        UNION ALL
        SELECT format('type %s', t.typname) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r', 'm')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                          WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
        ORDER BY 1";

    /// The public schema's definition, one line per column, index, constraint, trigger and function.
    const DEFINITION: &str = "
        SELECT format('column %s.%s %s %s default %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                      CASE WHEN a.attnotnull THEN 'not null' ELSE 'null' END,
                      coalesce(pg_get_expr(d.adbin, d.adrelid), '-')) AS item
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped
          AND c.relname NOT LIKE '\\_\\_diesel\\_schema\\_migrations%'
        UNION ALL
        SELECT format('index %s', pg_get_indexdef(i.indexrelid))
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relname NOT LIKE '\\_\\_diesel\\_schema\\_migrations%'
        UNION ALL
        SELECT format('constraint %s.%s %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relname NOT LIKE '\\_\\_diesel\\_schema\\_migrations%'
        UNION ALL
        SELECT format('trigger %s', pg_get_triggerdef(t.oid))
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND NOT t.tgisinternal
        UNION ALL
        SELECT format('function %s', pg_get_functiondef(p.oid))
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prokind = 'f'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                          WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        ORDER BY 1";

    fn items(conn: &mut SyncConnection, sql: &str) -> Result<Vec<String>, String> {
        diesel::sql_query(sql)
            .load::<Item>(conn)
            .map(|rows| rows.into_iter().map(|row| row.item).collect())
            .map_err(|e| format!("catalogue query failed: {e}"))
    }

    /// What differs between two schema definitions, one line each.
    pub fn definition_changes(before: &[String], after: &[String]) -> Vec<String> {
        let gone = before.iter().filter(|item| !after.contains(item)).map(|item| format!("lost: {item}"));
        let new = after.iter().filter(|item| !before.contains(item)).map(|item| format!("new: {item}"));
        gone.chain(new).collect()
    }

    /// Applies the migrations of `source` one by one, recording the schema before each; reverts them
    /// one by one, checking that each revert restores the schema recorded before that migration and
    /// that nothing is left at the end; applies them all again and checks the schema is the same as
    /// the first time. Returns the problems; empty when all is well. Synchronous (diesel's migration
    /// harness is): call it off the async workers.
    pub fn round_trip<S: MigrationSource<Pg>>(url: &str, source: impl Fn() -> S) -> Vec<String> {
        let mut conn = match SyncConnection::establish(url) {
            Ok(conn) => conn,
            Err(e) => return vec![format!("cannot connect: {e}")],
        };
        let total = match source().migrations() {
            Ok(migrations) => migrations.len(),
            Err(e) => return vec![format!("cannot read the migrations: {e}")],
        };
        // before[i]: the schema before the i-th migration was applied.
        let mut before = Vec::with_capacity(total);
        for _ in 0..total {
            match items(&mut conn, DEFINITION) {
                Ok(items) => before.push(items),
                Err(e) => return vec![e],
            }
            if let Err(e) = conn.run_next_migration(source()) {
                return vec![format!("applying migration {} of {total} failed: {e}", before.len())];
            }
        }
        let complete = match items(&mut conn, DEFINITION) {
            Ok(items) => items,
            Err(e) => return vec![e],
        };
        let mut problems = Vec::new();
        while let Some(expected) = before.pop() {
            let version = match conn.revert_last_migration(source()) {
                Ok(version) => version.to_string(),
                Err(e) => {
                    let version = conn.applied_migrations().ok().and_then(|v| v.first().map(|v| v.to_string()));
                    problems.push(format!(
                        "reverting {} failed (its down.sql): {e}",
                        version.unwrap_or_else(|| "?".into())
                    ));
                    return problems;
                }
            };
            match items(&mut conn, DEFINITION) {
                Ok(after) => problems.extend(
                    definition_changes(&expected, &after)
                        .into_iter()
                        .map(|change| format!("reverting {version} did not restore the schema before it: {change}")),
                ),
                Err(e) => return vec![e],
            }
        }
        match items(&mut conn, LEFTOVERS) {
            Ok(left) => {
                problems.extend(left.into_iter().map(|item| format!("left after reverting every migration: {item}")))
            }
            Err(e) => return vec![e],
        }
        if !problems.is_empty() {
            return problems;
        }
        if let Err(e) = conn.run_pending_migrations(source()) {
            return vec![format!("applying the migrations again after reverting them failed: {e}")];
        }
        match items(&mut conn, DEFINITION) {
            Ok(again) => definition_changes(&complete, &again)
                .into_iter()
                .map(|change| format!("schema differs after down and up again: {change}"))
                .collect(),
            Err(e) => vec![e],
        }
    }

    async fn round_trip_on_empty_database<S: MigrationSource<Pg>>(
        source: impl Fn() -> S + Send + 'static,
    ) -> Vec<String> {
        let db = TestDb::empty().await;
        let url = db.url.clone();
        let problems = tokio::task::spawn_blocking(move || round_trip(&url, source)).await.expect("round trip");
        drop(db);
        problems
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_migration_reverts_and_applies_again() {
        let problems = round_trip_on_empty_database(|| postgres_toolkit::db::MIGRATIONS).await;
        assert!(problems.is_empty(), "migrations do not survive down and up again:\n  {}", problems.join("\n  "));
    }

    /// A migrations folder made for one test, removed when dropped.
    struct ScratchMigrations(PathBuf);

    impl ScratchMigrations {
        fn new(migrations: &[(&str, &str, &str)]) -> Self {
            let dir = std::env::temp_dir().join(format!("tally-migrations-{}", shared_kernel::new_id().simple()));
            for (name, up, down) in migrations {
                let path = dir.join(name);
                std::fs::create_dir_all(&path).expect("scratch migration folder");
                std::fs::write(path.join("up.sql"), up).expect("up.sql");
                std::fs::write(path.join("down.sql"), down).expect("down.sql");
            }
            Self(dir)
        }

        fn source(&self) -> impl Fn() -> FileBasedMigrations + Send + 'static {
            let migrations = FileBasedMigrations::from_path(&self.0).expect("scratch migrations");
            move || migrations.clone()
        }
    }

    impl Drop for ScratchMigrations {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const GOOD: (&str, &str, &str) =
        ("2000-01-01-000001_good", "CREATE TABLE a (id INT PRIMARY KEY);", "DROP TABLE a;");

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_down_sql_that_leaves_something_behind_is_reported() {
        let scratch = ScratchMigrations::new(&[
            GOOD,
            (
                "2000-01-01-000002_forgetful",
                "CREATE TABLE b (id INT PRIMARY KEY); CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';",
                "DROP TABLE b;",
            ),
        ]);
        let problems = round_trip_on_empty_database(scratch.source()).await;
        assert!(
            problems[0].starts_with("reverting 20000101000002 did not restore the schema before it: new: function"),
            "{problems:?}"
        );
        assert_eq!(problems.last().map(String::as_str), Some("left after reverting every migration: function f()"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_down_sql_is_reported() {
        let scratch = ScratchMigrations::new(&[
            GOOD,
            ("2000-01-01-000002_broken", "CREATE TABLE b (id INT PRIMARY KEY);", "DROP TABLE b; DROP TABLE c;"),
        ]);
        let problems = round_trip_on_empty_database(scratch.source()).await;
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("reverting 20000101000002 failed"), "{problems:?}");
        assert!(problems[0].contains("\"c\" does not exist"), "{problems:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_down_sql_that_forgets_a_change_to_an_older_table_is_reported() {
        // Reverting everything hides this one (the older migration drops the whole table): only
        // comparing each revert with the schema before its migration notices the forgotten index.
        let scratch = ScratchMigrations::new(&[
            GOOD,
            ("2000-01-01-000002_forgetful", "CREATE INDEX a_id_idx ON a (id);", "SELECT 1;"),
        ]);
        let problems = round_trip_on_empty_database(scratch.source()).await;
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("did not restore the schema before it: new: index CREATE INDEX a_id_idx"),
            "{problems:?}"
        );
    }

    #[test]
    fn definition_changes_name_lost_and_new_items() {
        let before = ["column a.id integer not null default -".to_owned(), "index CREATE INDEX a_idx".to_owned()];
        let after = ["column a.id bigint not null default -".to_owned(), "index CREATE INDEX a_idx".to_owned()];
        assert_eq!(
            definition_changes(&before, &after),
            ["lost: column a.id integer not null default -", "new: column a.id bigint not null default -"]
        );
        assert!(definition_changes(&before, &before).is_empty());
    }
}

/// The storage mapper's constraint tables name real constraints or unique indexes.
mod constraint_tables {
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    #[derive(diesel::QueryableByName)]
    struct Name {
        #[diesel(sql_type = Text)]
        name: String,
    }

    /// The names in `known` that `existing` lacks.
    pub fn unknown<'a>(known: &[&'a str], existing: &[String]) -> Vec<&'a str> {
        known.iter().copied().filter(|name| !existing.iter().any(|e| e == name)).collect()
    }

    #[actix_web::test]
    async fn every_listed_constraint_exists() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        let existing: Vec<Name> = diesel::sql_query(
            "SELECT conname::text AS name FROM pg_constraint \
             UNION SELECT indexrelid::regclass::text FROM pg_index WHERE indisunique",
        )
        .load(&mut conn)
        .await
        .expect("names");
        let existing: Vec<String> = existing.into_iter().map(|n| n.name).collect();
        let tables = [
            &identity_postgres::CONSTRAINTS,
            &crm_postgres::CONSTRAINTS,
            &order_postgres::CONSTRAINTS,
            &warehouse_postgres::CONSTRAINTS,
        ];
        let known: Vec<&str> = tables.iter().flat_map(|t| t.names()).collect();
        assert!(known.len() > 30, "only {} names listed", known.len());
        let missing = unknown(&known, &existing);
        assert!(missing.is_empty(), "constraint tables name what the database lacks: {missing:?}");
    }

    #[test]
    fn the_check_reports_a_renamed_constraint() {
        let existing = vec!["users_email_key".to_owned()];
        assert_eq!(unknown(&["users_email_key", "users_mail_key"], &existing), vec!["users_mail_key"]);
    }
}

/// The columns every stock change rewrites are read by no index (key, expression or predicate):
/// PostgreSQL counts a column any index reads as indexed, and an update changing one writes an entry
/// in every index of the table instead of staying on its page (a heap-only update).
mod hot_columns {
    use diesel::sql_types::{BigInt, Text};
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    /// Indexes of `table` whose definition reads `column`.
    async fn indexes_reading(conn: &mut AsyncPgConnection, table: &str, column: &str) -> i64 {
        let found: Count = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 \
             AND indexdef ~ ('\\m' || $2 || '\\M')",
        )
        .bind::<Text, _>(table)
        .bind::<Text, _>(column)
        .get_result(conn)
        .await
        .expect("pg_indexes");
        found.n
    }

    #[actix_web::test]
    async fn stock_quantities_are_read_by_no_index() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        for column in ["quantity_on_hand", "quantity_reserved", "quantity_committed", "updated_at", "version"] {
            assert_eq!(indexes_reading(&mut conn, "inventory", column).await, 0, "an index reads inventory.{column}");
        }
        // The check has teeth: it finds the columns indexes do read.
        assert!(indexes_reading(&mut conn, "inventory", "product_id").await >= 2);
        // The low-stock index and the reorder suggestions' (migration 000032): a reorder point changes
        // with `PUT /inventory/{id}` only, never with a stock change.
        assert_eq!(indexes_reading(&mut conn, "inventory", "reorder_point").await, 2, "the low-stock indexes");
    }
}

/// The customer indexes that leave absent values out (a missing rep or tags: migration 000016; a
/// missing company: 000017) still serve the filters, whose clauses imply their predicates, and the
/// search reaches its one trigram index (migration `…_customer_search_text`). The table is seeded and
/// sequential scans are switched off, so the plan names the index a clause can use.
mod partial_customer_indexes {
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    #[derive(diesel::QueryableByName)]
    struct PlanLine {
        #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
        line: String,
    }

    pub(super) async fn plan(conn: &mut AsyncPgConnection, query: &str) -> String {
        let lines: Vec<PlanLine> = diesel::sql_query(format!("EXPLAIN {query}")).load(conn).await.expect("explain");
        lines.into_iter().map(|l| l.line).collect::<Vec<_>>().join("\n")
    }

    #[actix_web::test]
    async fn filters_and_search_reach_the_partial_indexes() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        // Many customers without a rep, phone or tags, a few with them: the index the clause can use is
        // then PostgreSQL's clear choice.
        diesel::sql_query(
            "INSERT INTO customers (id, name, email, tags, phone) \
             SELECT gen_random_uuid(), 'Customer ' || n, 'c' || n || '@example.com', \
                    CASE WHEN n % 500 = 0 THEN '{vip}'::text[] ELSE '{}' END, \
                    CASE WHEN n % 500 = 0 THEN '+1555' || lpad(n::text, 7, '0') END \
             FROM generate_series(1, 5000) AS n",
        )
        .execute(&mut conn)
        .await
        .expect("seed");
        diesel::sql_query("ANALYZE customers").execute(&mut conn).await.expect("analyze");
        diesel::sql_query("SET enable_seqscan = off").execute(&mut conn).await.expect("set");
        let cases = [
            // The clauses as `crm::customers` writes them (the tag filter with its cardinality clause).
            ("tags @> '{vip}' AND cardinality(tags) > 0", "customers_tags_idx"),
            ("assigned_to = '00000000-0000-0000-0000-000000000001'", "customers_assigned_idx"),
            // The search, over name, email and phone in one text (migration `…_customer_search_text`).
            ("search_text LIKE '%5550%'", "customers_search_idx"),
            // A search with an `@`: the part before it searched, the whole checked.
            ("search_text LIKE '%c77@%' AND strpos(search_text, 'c77@example') > 0", "customers_search_idx"),
            // The "company" type filter, and a company's customers (migration 000017).
            ("company_id IS NOT NULL", "customers_company_idx"),
            ("company_id = '00000000-0000-0000-0000-000000000001'", "customers_company_idx"),
        ];
        for (clause, index) in cases {
            let plan =
                plan(&mut conn, &format!("SELECT id FROM customers WHERE deleted_at IS NULL AND {clause}")).await;
            assert!(plan.contains(index), "{clause}: expected {index} in\n{plan}");
        }
        // Without its cardinality clause the tag filter cannot use the index: the repository must say it.
        let plan = plan(&mut conn, "SELECT id FROM customers WHERE deleted_at IS NULL AND tags @> '{vip}'").await;
        assert!(!plan.contains("customers_tags_idx"), "{plan}");
    }
}

/// Lists whose sort or filter no index served before migration 000018. With sequential scans and sorts
/// switched off, a plan still sorts (or names no index) only if no index can give what the list asks.
mod list_index_gaps {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    use super::partial_customer_indexes::plan;

    #[actix_web::test]
    async fn sorts_and_filters_of_the_lists_are_served_by_an_index() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        // Enough users that a trigram index beats a btree read with a filter.
        diesel::sql_query(
            "INSERT INTO users (id, email, name, password_hash) \
             SELECT gen_random_uuid(), 'u' || n || '@example.com', 'User ' || n, 'not-a-hash' \
             FROM generate_series(1, 3000) AS n",
        )
        .execute(&mut conn)
        .await
        .expect("seed");
        for setting in ["ANALYZE users", "SET enable_seqscan = off", "SET enable_sort = off"] {
            diesel::sql_query(setting).execute(&mut conn).await.expect("set");
        }
        // The statements as the repositories write them (warehouse/products, identity/users, crm/interactions).
        let cases = [
            (
                "SELECT id FROM products WHERE deleted_at IS NULL ORDER BY price DESC NULLS LAST, id DESC LIMIT 20",
                "products_price_desc_idx",
            ),
            (
                "SELECT id FROM users WHERE deleted_at IS NULL AND status = 'suspended' \
                 ORDER BY created_at DESC, id DESC LIMIT 20",
                "users_status_idx",
            ),
            (
                "SELECT id FROM users WHERE deleted_at IS NULL AND is_email_verified \
                 ORDER BY created_at DESC, id DESC LIMIT 20",
                "users_verified_idx",
            ),
            // The search's count as the repository sends it: the email arm ORed with the name arm.
            (
                "SELECT id FROM users WHERE deleted_at IS NULL AND (email LIKE '%ada%' OR lower(name) LIKE '%ada%') \
                 LIMIT 10001",
                "users_name_trgm_idx",
            ),
            (
                "SELECT id FROM interactions WHERE deleted_at IS NULL AND follow_up_required \
                 AND created_by = '00000000-0000-0000-0000-000000000001' \
                 ORDER BY follow_up_date ASC NULLS LAST, id ASC LIMIT 20",
                "interactions_follow_up_creator_idx",
            ),
        ];
        for (query, index) in cases {
            let plan = plan(&mut conn, query).await;
            assert!(plan.contains(index) && !plan.contains("Sort"), "{query}: expected {index}, no sort, in\n{plan}");
        }
    }
}

/// Every GIN index keeps a short pending list (migration 000017): the insert that overflows the list
/// merges all of it while the writes sharing its transaction wait, so a long list is a long write tail.
mod gin_pending_lists {
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    use tally_tests::TestDb;

    #[derive(diesel::QueryableByName)]
    struct GinIndex {
        #[diesel(sql_type = Text)]
        name: String,
        #[diesel(sql_type = Text)]
        options: String,
    }

    #[actix_web::test]
    async fn every_gin_index_has_a_short_pending_list() {
        let db = TestDb::new().await;
        let mut conn = AsyncPgConnection::establish(&db.url).await.expect("connect");
        let indexes: Vec<GinIndex> = diesel::sql_query(
            "SELECT c.relname::text AS name, coalesce(array_to_string(c.reloptions, ','), '') AS options \
             FROM pg_class c JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE a.amname = 'gin' AND n.nspname = 'public' ORDER BY 1",
        )
        .load(&mut conn)
        .await
        .expect("catalogue");
        assert!(indexes.len() >= 11, "the catalogue query found only {} GIN indexes", indexes.len());
        let long: Vec<String> = indexes
            .iter()
            .filter(|i| !i.options.split(',').any(|o| o == "gin_pending_list_limit=64"))
            .map(|i| format!("{} ({})", i.name, i.options))
            .collect();
        assert!(long.is_empty(), "GIN indexes with the default 4 MB pending list: {long:?}");
    }
}
