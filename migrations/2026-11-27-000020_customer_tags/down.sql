DROP TRIGGER customer_tags_on_update ON customers;
DROP TRIGGER customer_tags_on_insert ON customers;
DROP FUNCTION customer_tags_sync();
DROP TABLE customer_tags;
