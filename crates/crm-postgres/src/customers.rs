//! PostgreSQL adapter of `CustomerRepository`.

use async_trait::async_trait;
use crm_domain::{
    Customer, CustomerCreated, CustomerFilter, CustomerRepository, CustomerSort, CustomerSortField, CustomerType,
    Email, EmailScope, RepoError, SortDirection, StatusTransition, TierChange,
};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sql_types::Bool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join;
use postgres_toolkit::counting::{self, Plans};
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::customer_rows::{
    insert_customer, insert_customers, insert_history, load_customer, to_customers, CustomerRow,
};
use super::errors::{contains_pattern, from_diesel, stale_or_missing, CONSTRAINTS};
use super::schema::{customer_tags, customers};
use postgres_toolkit::db::{escape_like, lower, strpos};
use postgres_toolkit::events::record_event;
use postgres_toolkit::pipeline::{row_or_roll_back, transaction};
use postgres_toolkit::prepared::Prepared;
use postgres_toolkit::shared_commit::{SharedCommit, TransactionWrite};
use postgres_toolkit::storage::{connect, connect_shared};
use postgres_toolkit::DbPool;

#[derive(Clone)]
pub struct PgCustomerRepository {
    pool: DbPool,
    creations: SharedCommit<Creation>,
}

impl PgCustomerRepository {
    pub fn new(pool: DbPool) -> Self {
        Self { creations: SharedCommit::new(pool.clone()), pool }
    }

    /// (transactions, customers) the creations have taken so far: how many shared a commit.
    pub fn creation_counts(&self) -> (u64, u64) {
        self.creations.counts()
    }
}

/// A new customer, its first history row and its events: a write that may share a commit.
struct Creation(CustomerCreated);

#[async_trait]
impl TransactionWrite for Creation {
    type Written = CustomerRow;
    /// Two creations of one address are never together: the second must meet the first's row.
    type Key = String;

    fn key(&self) -> String {
        self.0.customer.email.as_str().to_owned()
    }

    #[tracing::instrument(skip_all)]
    async fn write(&self, conn: &AsyncPgConnection) -> Result<CustomerRow, diesel::result::Error> {
        insert_customer(conn, &self.0).await
    }

    /// One insert per table for all of them.
    async fn write_together(
        writes: &[&Self],
        conn: &AsyncPgConnection,
    ) -> Result<Vec<CustomerRow>, diesel::result::Error> {
        let created: Vec<&CustomerCreated> = writes.iter().map(|write| &write.0).collect();
        insert_customers(conn, &created).await
    }
}

/// After a conditional update matched nothing: was the customer there (stale) or not (missing)?
async fn missed(conn: &mut AsyncPgConnection, id: Uuid) -> RepoError {
    stale_or_missing(load_customer(conn, id).await.map(|found| found.is_some()))
}

/// The answer of a conditional save: its row, or (the transaction rolled back because the update
/// missed) whether the customer moved or is gone.
async fn saved_or_stale(
    conn: &mut AsyncPgConnection,
    id: Uuid,
    saved: Result<CustomerRow, diesel::result::Error>,
) -> Result<Customer, RepoError> {
    match saved {
        Ok(row) => Customer::try_from(row),
        Err(diesel::result::Error::RollbackTransaction) => Err(missed(conn, id).await),
        Err(error) => Err(from_diesel(error)),
    }
}

/// Non-deleted customers matching every filter of `filter` (sorting aside).
/// How long the part of a search before its `@` must be for the email index to be asked for it alone.
const LOCAL_PART_SEARCHED_ALONE: usize = 3;

fn filtered(filter: &CustomerFilter) -> customers::BoxedQuery<'_, Pg> {
    let mut query = customers::table.filter(customers::deleted_at.is_null()).into_boxed();
    // By rank, so the (rank, created_at, id) indexes serve the filter and the default sort together.
    if let Some(status) = filter.status {
        query = query.filter(customers::status_rank.eq(status.rank()));
    }
    if let Some(tier) = filter.tier {
        query = query.filter(customers::tier_rank.eq(tier.rank()));
    }
    if let Some(rep) = filter.assigned_to {
        query = query.filter(customers::assigned_to.eq(rep));
    }
    if !filter.tags.is_empty() {
        // `tags @> $1`: carries all of them (GIN index). The index holds only customers with tags
        // (migration 000016); saying so lets PostgreSQL use it, and changes nothing else.
        query = query
            .filter(customers::tags.contains(filter.tags.clone()))
            .filter(diesel::dsl::cardinality(customers::tags).gt(0));
    }
    match filter.customer_type {
        Some(CustomerType::Individual) => query = query.filter(customers::company_id.is_null()),
        Some(CustomerType::Company) => query = query.filter(customers::company_id.is_not_null()),
        None => {}
    }
    if let Some(search) = &filter.search {
        query = query.filter(searched(search));
        if search.contains(SEARCH_FIELD_SEPARATOR) {
            // Such text could match across two of `search_text`'s fields: each field is checked alone too.
            let pattern = contains_pattern(search);
            query = query.filter(
                customers::name
                    .ilike(pattern.clone())
                    .or(customers::email.like(lower(pattern.clone())))
                    .or(customers::phone.assume_not_null().like(pattern)),
            );
        }
    }
    query
}

/// What `search_text` puts between the lower-cased name, the email and the phone.
const SEARCH_FIELD_SEPARATOR: char = '\u{1f}';

/// Customers whose name (case-insensitively), email or phone contains `search`, from `search_text`:
/// the email is stored lower-cased and the phone holds only `+` and digits (CHECKs), so a `LIKE`
/// against the lowered pattern matches exactly what `ILIKE` on each field would, behind one trigram
/// index and without folding any row's case again
/// (docs/adr/0017-indexes-for-lists-and-lean-writes.md).
fn searched(search: &str) -> Box<dyn BoxableExpression<customers::table, Pg, SqlType = Bool> + '_> {
    let text = customers::search_text;
    match search.split_once('@') {
        // An address's domain is shared by most addresses, so its trigrams are in most entries of the index,
        // and asking the index for them reads a posting list per trigram for every candidate (1 700 pages at
        // 10^6 customers, docs/adr/0017-indexes-for-lists-and-lean-writes.md). The index is
        // asked for what comes before the first `@` (implied by the whole text); `strpos`, which no index
        // serves, checks the whole text on the few rows found. A part too short to hold a trigram would leave
        // the index nothing to search by: the whole text is asked for then.
        Some((local, _)) if local.chars().count() >= LOCAL_PART_SEARCHED_ALONE => Box::new(
            text.like(lower(format!("%{}@%", escape_like(local)))).and(strpos(text, lower(search.to_owned())).gt(0)),
        ),
        _ => Box::new(text.like(lower(contains_pattern(search)))),
    }
}

/// Whether `filter` leaves every non-deleted customer in the list.
fn unfiltered(filter: &CustomerFilter) -> bool {
    let CustomerFilter { status, tier, assigned_to, tags, customer_type, search, sort: _ } = filter;
    status.is_none()
        && tier.is_none()
        && assigned_to.is_none()
        && tags.is_empty()
        && customer_type.is_none()
        && search.is_none()
}

/// Whether a list's statements may be kept prepared ([`Plans`]): with the default sort and no filter,
/// or one filter that an index serves in the sort's order (status, tier or rep: `(rank or rep,
/// created_at DESC, id DESC)`; the customer type has no value), every value is best served by walking
/// that one index, for the page and for the count alike. Six such shapes at most, so six texts of each
/// statement a connection (one tag, alone or with a status, is [`OneTag`]'s, two shapes more). A
/// search, two filters or another sort are planned for their values: two filters' best index depends
/// on which value is rarer, a sort by name on how many rows match.
fn plans(filter: &CustomerFilter) -> Plans {
    let CustomerFilter { status, tier, assigned_to, tags, customer_type, search, sort } = filter;
    let filters = [status.is_some(), tier.is_some(), assigned_to.is_some(), customer_type.is_some()];
    let one_index = filters.into_iter().filter(|set| *set).count() <= 1 && tags.is_empty() && search.is_none();
    if one_index && *sort == CustomerSort::default() {
        Plans::Kept
    } else {
        Plans::PerRun
    }
}

/// What a list's total counts. With no filter it walks the list index: PostgreSQL would count along
/// the table instead (a sequential scan unpacking every row up to `deleted_at`), 2.2 against 0.9 ms
/// for the 10 001 rows counted of a million (docs/adr/0016-counted-list-totals.md).
fn counted(filter: &CustomerFilter) -> customers::BoxedQuery<'_, Pg> {
    let query = filtered(filter);
    if unfiltered(filter) {
        query.order((customers::created_at.desc(), customers::id.desc()))
    } else {
        query
    }
}

/// A filter of one tag, alone or with a status, and nothing else: served from `customer_tags`
/// (trigger-kept, one row per tag of a non-deleted customer, with its status rank and creation time).
/// Its total is a walk along one btree answered from the index alone, where `customers` needs the
/// tag's whole GIN posting list as a bitmap and a heap visit per row counted (46 against 5 ms for
/// 10 001 of a million); in the default order its page walks the same index and reads only the
/// customers it shows (docs/adr/0016-counted-list-totals.md). Several
/// tags keep the GIN index, which intersects their posting lists; any other filter keeps `customers`.
struct OneTag<'a> {
    tag: &'a str,
    status_rank: Option<i16>,
}

impl<'a> OneTag<'a> {
    fn of(filter: &'a CustomerFilter) -> Option<Self> {
        let CustomerFilter { status, tier, assigned_to, tags, customer_type, search, sort: _ } = filter;
        let [tag] = tags.as_slice() else { return None };
        if tier.is_some() || assigned_to.is_some() || customer_type.is_some() || search.is_some() {
            return None;
        }
        Some(Self { tag, status_rank: status.map(|status| status.rank()) })
    }

    /// The tag's rows (a customer's id each): what the total counts.
    fn counted(&self) -> customer_tags::BoxedQuery<'a, Pg, diesel::sql_types::Uuid> {
        let query = customer_tags::table
            .filter(customer_tags::tag.eq(self.tag))
            .select(customer_tags::customer_id)
            .into_boxed();
        match self.status_rank {
            Some(rank) => query.filter(customer_tags::status_rank.eq(rank)),
            None => query,
        }
    }

    /// `page` of the list in its default order (newest first): the page's ids along the tag's index,
    /// then those customers alone. A join would read every customer before the offset too, and
    /// `IN (<ids>)` is planned as a semi-join, weighed against every index of `customers` on each run;
    /// `= ANY(ARRAY(<ids>))` computes the ids once and looks them up by the primary key.
    fn newest(&self, page: PageRequest) -> customers::BoxedQuery<'a, Pg> {
        let ids = self
            .counted()
            .order((customer_tags::created_at.desc(), customer_tags::customer_id.desc()))
            .offset(page.offset())
            .limit(page.limit());
        customers::table
            .filter(customers::id.eq_any(diesel::dsl::array(ids)))
            .order((customers::created_at.desc(), customers::id.desc()))
            .into_boxed()
    }
}

fn sorted<'a>(mut query: customers::BoxedQuery<'a, Pg>, filter: &CustomerFilter) -> customers::BoxedQuery<'a, Pg> {
    use CustomerSortField as F;
    use SortDirection::{Asc, Desc};
    for &(field, direction) in filter.sort.keys() {
        query = match (field, direction) {
            (F::CreatedAt, Asc) => query.then_order_by(customers::created_at.asc()),
            (F::CreatedAt, Desc) => query.then_order_by(customers::created_at.desc()),
            (F::UpdatedAt, Asc) => query.then_order_by(customers::updated_at.asc()),
            (F::UpdatedAt, Desc) => query.then_order_by(customers::updated_at.desc()),
            (F::Name, Asc) => query.then_order_by(customers::name.asc()),
            (F::Name, Desc) => query.then_order_by(customers::name.desc()),
            (F::Email, Asc) => query.then_order_by(customers::email.asc()),
            (F::Email, Desc) => query.then_order_by(customers::email.desc()),
            // Business order (lead < prospect < customer < churned; free < … < enterprise).
            (F::Status, Asc) => query.then_order_by(customers::status_rank.asc()),
            (F::Status, Desc) => query.then_order_by(customers::status_rank.desc()),
            (F::Tier, Asc) => query.then_order_by(customers::tier_rank.asc()),
            (F::Tier, Desc) => query.then_order_by(customers::tier_rank.desc()),
        };
    }
    // Stable pages.
    query.then_order_by(customers::id.desc())
}

#[async_trait]
impl CustomerRepository for PgCustomerRepository {
    #[tracing::instrument(skip_all)]
    async fn create(&self, created: &CustomerCreated) -> Result<Customer, RepoError> {
        let row = self.creations.write(Creation(created.clone())).await.map_err(|e| e.resolve(&CONSTRAINTS))?;
        Customer::try_from(row)
    }

    /// All in one transaction (a savepoint inside a request's), one statement per table; if any is
    /// refused (a taken email), that transaction rolls back and each is written alone, so each gets
    /// its own answer.
    #[tracing::instrument(skip_all, fields(customers = batch.len()))]
    async fn create_many(&self, batch: &[CustomerCreated]) -> Vec<Result<Customer, RepoError>> {
        if batch.len() > 1 {
            let together: Vec<&CustomerCreated> = batch.iter().collect();
            let written = async {
                let mut conn = connect(&self.pool).await?;
                transaction(&mut conn, async |shared: &AsyncPgConnection| insert_customers(shared, &together).await)
                    .await
                    .map_err(from_diesel)
            };
            if let Ok(rows) = written.await {
                return rows.into_iter().map(Customer::try_from).collect();
            }
        }
        let mut answers = Vec::with_capacity(batch.len());
        for created in batch {
            answers.push(self.create(created).await);
        }
        answers
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn find_by_id(&self, id: Uuid) -> Result<Option<Customer>, RepoError> {
        let conn = connect_shared(&self.pool).await?;
        load_customer(&conn, id).await.map_err(from_diesel)?.map(Customer::try_from).transpose()
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn exists(&self, id: Uuid) -> Result<bool, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let live = customers::table.filter(customers::id.eq(id).and(customers::deleted_at.is_null()));
        diesel::select(diesel::dsl::exists(live)).get_result(&mut conn).await.map_err(from_diesel)
    }

    #[tracing::instrument(skip_all)]
    async fn find_by_email(&self, email: &Email, scope: EmailScope) -> Result<Option<Customer>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let mut query = customers::table
            .filter(customers::email.eq(email.as_str()).and(customers::deleted_at.is_null()))
            .into_boxed();
        query = match scope {
            EmailScope::Newest => query,
            EmailScope::Company(company) => query.filter(customers::company_id.eq(company)),
            EmailScope::NoCompany => query.filter(customers::company_id.is_null()),
        };
        let row = query
            .order((customers::created_at.desc(), customers::id.desc()))
            .select(CustomerRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(Customer::try_from).transpose()
    }

    #[tracing::instrument(skip_all)]
    async fn find_by_user_id(&self, user_id: Uuid) -> Result<Option<Customer>, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let row = customers::table
            .filter(customers::user_id.eq(user_id).and(customers::deleted_at.is_null()))
            .select(CustomerRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(Customer::try_from).transpose()
    }

    #[tracing::instrument(skip_all)]
    async fn list(&self, filter: &CustomerFilter, page: PageRequest) -> Result<Page<Customer>, RepoError> {
        let conn = connect(&self.pool).await?;
        let sorted_page = || {
            sorted(filtered(filter), filter).offset(page.offset()).limit(page.limit()).select(CustomerRow::as_select())
        };
        let (rows, total) = match OneTag::of(filter) {
            // One index walk for every tag and status, count and page alike: kept prepared ([`Plans`]).
            Some(one) if filter.sort == CustomerSort::default() => {
                let rows = one.newest(page).select(CustomerRow::as_select());
                counting::list_page!(&conn, page, one.counted(), rows, Plans::Kept).await
            }
            Some(one) => counting::list_page!(&conn, page, one.counted(), sorted_page()).await,
            None => counting::list_page!(&conn, page, counted(filter), sorted_page(), plans(filter)).await,
        }
        .map_err(from_diesel)?;
        Ok(Page::new(to_customers(rows)?, total, page))
    }

    #[tracing::instrument(skip_all)]
    async fn update(&self, customer: &Customer) -> Result<Customer, RepoError> {
        let mut conn = connect(&self.pool).await?;
        // Written only over the version it was read at: every plain field is written, so a change
        // made meanwhile (an assignment racing a rename) would otherwise be undone.
        let row = Prepared(
            diesel::update(customers::table)
                .filter(customers::id.eq(customer.id).and(customers::deleted_at.is_null()))
                .filter(customers::version.eq(customer.version))
                .set((
                    customers::user_id.eq(customer.user_id),
                    customers::name.eq(&customer.name),
                    customers::phone.eq(customer.phone.as_deref()),
                    customers::source.eq(customer.source.as_deref()),
                    customers::assigned_to.eq(customer.assigned_to),
                    customers::tags.eq(&customer.tags),
                    customers::updated_at.eq(customer.updated_at),
                ))
                .returning(CustomerRow::as_returning()),
        )
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(from_diesel)?;
        match row {
            Some(row) => Customer::try_from(row),
            None => Err(missed(&mut conn, customer.id).await),
        }
    }

    #[tracing::instrument(skip_all)]
    async fn save_transition(&self, transition: &StatusTransition) -> Result<Customer, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let next = &transition.customer;
        let saved = transaction(
            &mut conn,
            async |mut shared: &AsyncPgConnection| -> Result<CustomerRow, diesel::result::Error> {
                let update = Prepared(
                    diesel::update(customers::table)
                        .filter(customers::id.eq(next.id).and(customers::deleted_at.is_null()))
                        .filter(customers::status.eq(transition.from.as_str()))
                        .set((
                            customers::status.eq(next.status.as_str()),
                            customers::churned_at.eq(next.churned_at),
                            customers::updated_at.eq(next.updated_at),
                        ))
                        .returning(CustomerRow::as_returning()),
                )
                .get_result(&mut shared);
                let followers = try_join(
                    insert_history(shared, next.id, &transition.history),
                    record_event(shared, &transition.events),
                );
                row_or_roll_back(update, followers).await
            },
        )
        .await;
        let saved = saved_or_stale(&mut conn, next.id, saved).await;
        // The events went to the outbox: the relay is woken (the handlers no longer do it).
        if saved.is_ok() {
            self.pool.wake_relay();
        }
        saved
    }

    #[tracing::instrument(skip_all)]
    async fn save_tier_change(&self, change: &TierChange) -> Result<Customer, RepoError> {
        let mut conn = connect(&self.pool).await?;
        let next = &change.customer;
        let saved = transaction(
            &mut conn,
            async |mut shared: &AsyncPgConnection| -> Result<CustomerRow, diesel::result::Error> {
                let update = Prepared(
                    diesel::update(customers::table)
                        .filter(customers::id.eq(next.id).and(customers::deleted_at.is_null()))
                        .filter(customers::tier.eq(change.from.as_str()))
                        .set((customers::tier.eq(next.tier.as_str()), customers::updated_at.eq(next.updated_at)))
                        .returning(CustomerRow::as_returning()),
                )
                .get_result(&mut shared);
                row_or_roll_back(update, record_event(shared, &change.events)).await
            },
        )
        .await;
        let saved = saved_or_stale(&mut conn, next.id, saved).await;
        if saved.is_ok() {
            self.pool.wake_relay();
        }
        saved
    }

    #[tracing::instrument(skip_all, fields(id = %id))]
    async fn soft_delete(&self, id: Uuid, at: OffsetDateTime) -> Result<(), RepoError> {
        let mut conn = connect(&self.pool).await?;
        let deleted = Prepared(
            diesel::update(customers::table)
                .filter(customers::id.eq(id).and(customers::deleted_at.is_null()))
                .set(customers::deleted_at.eq(at)),
        )
        .execute(&mut conn)
        .await
        .map_err(from_diesel)?;
        if deleted == 1 {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }
}
