DROP INDEX customers_company_idx;
CREATE INDEX customers_company_idx ON customers (company_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

DO $$
DECLARE
    gin_index regclass;
BEGIN
    FOR gin_index IN
        SELECT c.oid::regclass FROM pg_class c
        JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE a.amname = 'gin' AND n.nspname = current_schema()
    LOOP
        EXECUTE format('ALTER INDEX %s RESET (gin_pending_list_limit)', gin_index);
    END LOOP;
END $$;
