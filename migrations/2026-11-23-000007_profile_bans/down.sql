DROP INDEX IF EXISTS profiles_banned_user_idx;
