-- A product's preferred supplier (`supplier_id`) must be a live one when it is set: the foreign key
-- lets a soft-deleted supplier through, so this trigger refuses it as the foreign key refuses a
-- missing one (same SQLSTATE and constraint name, so the adapters map both to 404 NOT_FOUND,
-- docs/purchasing-and-transfers.md). A write that keeps the supplier a product already names is let
-- through: a supplier deleted since is not chosen anew, and the reorder suggestions skip it.
CREATE FUNCTION products_supplier_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.supplier_id IS NOT NULL
       AND (TG_OP = 'INSERT' OR NEW.supplier_id IS DISTINCT FROM OLD.supplier_id)
       AND NOT EXISTS (SELECT 1 FROM suppliers WHERE id = NEW.supplier_id AND deleted_at IS NULL) THEN
        RAISE EXCEPTION 'supplier % is deleted', NEW.supplier_id
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'products_supplier_id_fkey',
                  TABLE = 'products', COLUMN = 'supplier_id';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER products_supplier_live BEFORE INSERT OR UPDATE OF supplier_id ON products
    FOR EACH ROW EXECUTE FUNCTION products_supplier_live();
