-- A shorter write tail (docs/adr/0017-indexes-for-lists-and-lean-writes.md).

-- A GIN index buffers new entries in a pending list and merges the list into its tree when it
-- outgrows `gin_pending_list_limit` (4 MB by default); the insert that crosses the limit does the
-- whole merge itself, tens of milliseconds on this machine kind, and every write sharing its
-- transaction waits for it. With a 64 kB list (the least allowed) each merge is short, and a search,
-- which reads the whole pending list, reads less. Every GIN index of the schema (a schema test keeps
-- it so for new ones).
DO $$
DECLARE
    gin_index regclass;
BEGIN
    FOR gin_index IN
        SELECT c.oid::regclass FROM pg_class c
        JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE a.amname = 'gin' AND n.nspname = current_schema()
    LOOP
        EXECUTE format('ALTER INDEX %s SET (gin_pending_list_limit = 64)', gin_index);
    END LOOP;
END $$;

-- Customers without a company (most of them) no longer write an entry into the company index: the
-- "company" type filter (`company_id IS NOT NULL`) and a lookup by company both imply the clause.
DROP INDEX customers_company_idx;
CREATE INDEX customers_company_idx ON customers (company_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL AND company_id IS NOT NULL;
