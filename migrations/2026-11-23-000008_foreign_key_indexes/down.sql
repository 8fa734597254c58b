DROP INDEX IF EXISTS profiles_country_idx;
DROP INDEX IF EXISTS profiles_language_idx;
DROP INDEX IF EXISTS profiles_timezone_idx;
DROP INDEX IF EXISTS contacts_country_idx;
