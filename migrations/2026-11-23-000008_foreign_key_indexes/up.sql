-- Every foreign key has an index whose leading columns are the key's columns (checked by the
-- `schema` integration test): without one, deleting or re-keying a referenced row scans the whole
-- referencing table under lock. These four reference-data keys of the identity tables had none.
CREATE INDEX contacts_country_idx ON contacts (country);
CREATE INDEX profiles_timezone_idx ON profiles (timezone);
CREATE INDEX profiles_language_idx ON profiles (language);
CREATE INDEX profiles_country_idx ON profiles (country);
