-- Resource versions (docs/retries.md): every resource row carries a version the database
-- maintains, bumped by a trigger on every UPDATE, so a strong ETag is derived from the row a
-- request read (never a hash of a second read) and If-Match is checked against it under a row lock.
CREATE FUNCTION tally_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END $$;

ALTER TABLE companies ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER companies_version BEFORE UPDATE ON companies FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE customers ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER customers_version BEFORE UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE deals ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER deals_version BEFORE UPDATE ON deals FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE interactions ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER interactions_version BEFORE UPDATE ON interactions FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE users ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER users_version BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE roles ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER roles_version BEFORE UPDATE ON roles FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE permissions ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER permissions_version BEFORE UPDATE ON permissions FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE contacts ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER contacts_version BEFORE UPDATE ON contacts FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE profiles ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER profiles_version BEFORE UPDATE ON profiles FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE products ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER products_version BEFORE UPDATE ON products FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE locations ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER locations_version BEFORE UPDATE ON locations FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

ALTER TABLE inventory ADD COLUMN version BIGINT NOT NULL DEFAULT 1 CHECK (version >= 1);
CREATE TRIGGER inventory_version BEFORE UPDATE ON inventory FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

-- orders.version already exists (the order's compare-and-set sets it to expected + 1, which is
-- what the trigger gives too); the trigger makes every other update bump it as well.
CREATE TRIGGER orders_version BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION tally_bump_version();

-- A role's answer counts its permissions: granting or removing one is a change of the role.
CREATE FUNCTION tally_bump_role_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE roles SET version = version + 1 WHERE id = COALESCE(NEW.role_id, OLD.role_id);
    RETURN NULL;
END $$;
CREATE TRIGGER role_permissions_role_version AFTER INSERT OR DELETE ON role_permissions
    FOR EACH ROW EXECUTE FUNCTION tally_bump_role_version();
