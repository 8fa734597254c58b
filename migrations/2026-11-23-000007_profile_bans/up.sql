-- A banned profile stays banned (docs/identity.md): creating a profile is
-- refused while any profile of the user, live or soft-deleted, is banned.
-- The check is part of the INSERT; this index keeps it a look-up.
CREATE INDEX profiles_banned_user_idx ON profiles (user_id) WHERE is_banned;
