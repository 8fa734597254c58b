DROP TRIGGER IF EXISTS products_supplier_live ON products;
DROP FUNCTION IF EXISTS products_supplier_live();
