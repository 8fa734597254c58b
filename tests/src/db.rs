//! Databases for tests.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use tokio::sync::OnceCell;

use crate::admin_url;

/// A database of its own for one test; dropped with this value.
pub struct TestDb {
    pub name: String,
    pub url: String,
}

static TEMPLATE: OnceCell<String> = OnceCell::const_new();

fn url_for(database: &str) -> String {
    let admin = admin_url();
    let base = admin.rsplit_once('/').map(|(head, _)| head.to_owned()).unwrap_or(admin);
    format!("{base}/{database}")
}

fn migrations_hash() -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let mut entries: Vec<_> = walk(&dir);
    entries.sort();
    let mut hasher = DefaultHasher::new();
    for path in entries {
        // Relative to the migrations folder, so checkouts at different paths share a template.
        path.strip_prefix(&dir).unwrap_or(&path).to_string_lossy().hash(&mut hasher);
        std::fs::read(&path).unwrap_or_default().hash(&mut hasher);
    }
    // Reference data is seeded into the template too.
    for data in ["countries", "currencies", "languages", "timezones"] {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../crates/reference-data/data/{data}.json"));
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    hasher.finish()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    if let Ok(read) = std::fs::read_dir(dir) {
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
    }
    files
}

async fn admin() -> AsyncPgConnection {
    AsyncPgConnection::establish(&admin_url()).await.expect("PostgreSQL must be running for the integration tests")
}

async fn database_exists(conn: &mut AsyncPgConnection, name: &str) -> bool {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let found: Count = diesel::sql_query("SELECT count(*) AS n FROM pg_database WHERE datname = $1")
        .bind::<diesel::sql_types::Text, _>(name)
        .get_result(conn)
        .await
        .expect("query pg_database");
    found.n > 0
}

/// Drops test databases older than an hour (crashed runs) and templates of other migration sets
/// made more than an hour ago (each template's comment holds when it was made): a checkout with
/// other migrations may be testing on its own template right now.
async fn sweep(conn: &mut AsyncPgConnection, keep_template: &str) {
    #[derive(diesel::QueryableByName)]
    struct Name {
        #[diesel(sql_type = diesel::sql_types::Text)]
        datname: String,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
        made: Option<String>,
    }
    let names: Vec<Name> = diesel::sql_query(
        "SELECT datname::text AS datname, shobj_description(oid, 'pg_database') AS made \
         FROM pg_database WHERE datname LIKE 'tally\\_t%'",
    )
    .load(conn)
    .await
    .unwrap_or_default();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let old = |t: Option<u64>| t.is_some_and(|t| now.saturating_sub(t) > 3600);
    for Name { datname, made } in names {
        let stale = if let Some(rest) = datname.strip_prefix("tally_test_") {
            old(rest.split('_').next().and_then(|s| s.parse::<u64>().ok()))
        } else {
            datname.starts_with("tally_tpl_")
                && datname != keep_template
                && old(made.and_then(|made| made.parse::<u64>().ok()))
        };
        if stale {
            let _ =
                diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{datname}\" WITH (FORCE)")).execute(conn).await;
        }
    }
}

/// The migrated, seeded template; made once per migrations version.
async fn template() -> String {
    TEMPLATE
        .get_or_init(|| async {
            let name = format!("tally_tpl_{:016x}", migrations_hash());
            ensure_template(&name).await;
            name
        })
        .await
        .clone()
}

/// Makes template `name` unless it exists; then sweeps what is stale.
async fn ensure_template(name: &str) {
    let mut conn = admin().await;
    // Serialise template creation across parallel test processes.
    diesel::sql_query("SELECT pg_advisory_lock(727274)").execute(&mut conn).await.expect("advisory lock");
    if !database_exists(&mut conn, name).await {
        let building = format!("{name}_build");
        let _ =
            diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)")).execute(&mut conn).await;
        diesel::sql_query(format!("CREATE DATABASE \"{building}\"")).execute(&mut conn).await.expect("create");
        let url = url_for(&building);
        postgres_toolkit::db::run_migrations(&url).await.expect("migrations apply");
        let pool = postgres_toolkit::db::build_pool(&postgres_toolkit::db::PoolSettings::new(&url, 2)).expect("pool");
        postgres_toolkit::reference::seed(&pool).await.expect("seed reference data");
        drop(pool);
        diesel::sql_query(format!("ALTER DATABASE \"{building}\" RENAME TO \"{name}\""))
            .execute(&mut conn)
            .await
            .expect("rename template");
        let made = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        diesel::sql_query(format!("COMMENT ON DATABASE \"{name}\" IS '{made}'"))
            .execute(&mut conn)
            .await
            .expect("date the template");
    }
    sweep(&mut conn, name).await;
    diesel::sql_query("SELECT pg_advisory_unlock(727274)").execute(&mut conn).await.expect("unlock");
}

/// A test database name the sweep recognises (`tally_test_<unix seconds>_<id>`).
fn test_database_name() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    format!("tally_test_{now}_{}", shared_kernel::new_id().simple())
}

impl TestDb {
    pub async fn new() -> Self {
        crate::logs::init_from_env();
        let template = template().await;
        let name = test_database_name();
        let mut conn = admin().await;
        // CREATE DATABASE … TEMPLATE fails while another session is connected to
        // the template (e.g. a parallel clone); retry briefly.
        let mut attempt = 0;
        loop {
            let created = diesel::sql_query(format!("CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""))
                .execute(&mut conn)
                .await;
            match created {
                Ok(_) => break,
                Err(error) if attempt < 50 => {
                    attempt += 1;
                    // A checkout with an older copy of this file swept the template away: make it again.
                    if error.to_string().contains("does not exist") {
                        ensure_template(&template).await;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50 + attempt * 10)).await;
                }
                Err(error) => panic!("cannot create test database: {error}"),
            }
        }
        Self { url: url_for(&name), name }
    }

    /// An empty database of its own, not migrated (for tests of the migrations themselves).
    pub async fn empty() -> Self {
        let name = test_database_name();
        let mut conn = admin().await;
        diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|error| panic!("cannot create empty test database: {error}"));
        Self { url: url_for(&name), name }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs outside any async context we can rely on: use a thread.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async move {
                let mut conn = AsyncPgConnection::establish(&admin_url()).await.ok()?;
                diesel::sql_query(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .execute(&mut conn)
                    .await
                    .ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(_))) {
            eprintln!("warning: test database {} was not dropped; the next run sweeps it", self.name);
        }
    }
}
