DROP TRIGGER customer_tags_on_update ON customers;
CREATE TRIGGER customer_tags_on_update AFTER UPDATE OF tags, status, deleted_at ON customers FOR EACH ROW
    WHEN ((cardinality(OLD.tags) > 0 OR cardinality(NEW.tags) > 0)
          AND (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.status IS DISTINCT FROM NEW.status
               OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at))
    EXECUTE FUNCTION customer_tags_sync();
CREATE OR REPLACE FUNCTION customer_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM customer_tags WHERE customer_id = OLD.id;
    END IF;
    IF NEW.deleted_at IS NULL THEN
        INSERT INTO customer_tags (customer_id, tag, status_rank)
        SELECT DISTINCT NEW.id, tag, NEW.status_rank FROM unnest(NEW.tags) AS tag;
    END IF;
    RETURN NULL;
END $$;
DROP INDEX customer_tags_tag_status_idx;
DROP INDEX customer_tags_tag_idx;
CREATE INDEX customer_tags_tag_idx ON customer_tags (tag, status_rank, customer_id);
ALTER TABLE customer_tags DROP COLUMN created_at;
