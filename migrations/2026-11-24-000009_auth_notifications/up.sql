-- Every change that decides whether a token is still good is announced on the
-- `tally_auth` channel, in the transaction that makes it (PostgreSQL delivers a
-- NOTIFY at commit, never for a rollback). Each instance keeps the revocations
-- and its callers' access profiles in memory and drops what a notice names, so
-- an authenticated request needs no query of its own. Payloads:
--   user:<uuid>              that user's status, token version, roles or deletion changed
--   all                      a role or permission changed: every cached profile is stale
--   jti:<uuid>:<epoch>       an access or refresh token was revoked until <epoch> (seconds)
--   family:<uuid>:<epoch>    a refresh-token family was revoked until <epoch>

CREATE FUNCTION tally_auth_notify_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_auth', 'user:' || COALESCE(NEW.id, OLD.id));
    RETURN NULL;
END $$;

CREATE TRIGGER users_auth_notice
    AFTER UPDATE OF status, token_version, deleted_at ON users
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
          OR OLD.token_version IS DISTINCT FROM NEW.token_version
          OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
    EXECUTE FUNCTION tally_auth_notify_users();
CREATE TRIGGER users_auth_notice_delete
    AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION tally_auth_notify_users();

CREATE FUNCTION tally_auth_notify_user_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_notify('tally_auth', 'user:' || OLD.user_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pg_notify('tally_auth', 'user:' || NEW.user_id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER user_roles_auth_notice
    AFTER INSERT OR UPDATE OR DELETE ON user_roles
    FOR EACH ROW EXECUTE FUNCTION tally_auth_notify_user_roles();

CREATE FUNCTION tally_auth_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_auth', 'all');
    RETURN NULL;
END $$;

-- A new role or permission grants nothing until it is attached, so inserts
-- into roles and permissions need no notice.
CREATE TRIGGER roles_auth_notice
    AFTER UPDATE OR DELETE ON roles
    FOR EACH STATEMENT EXECUTE FUNCTION tally_auth_notify_all();
CREATE TRIGGER permissions_auth_notice
    AFTER UPDATE OR DELETE ON permissions
    FOR EACH STATEMENT EXECUTE FUNCTION tally_auth_notify_all();
CREATE TRIGGER role_permissions_auth_notice
    AFTER INSERT OR UPDATE OR DELETE ON role_permissions
    FOR EACH STATEMENT EXECUTE FUNCTION tally_auth_notify_all();

CREATE FUNCTION tally_auth_notify_revoked_token() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_auth',
        'jti:' || NEW.jti || ':' || floor(extract(epoch FROM NEW.expires_at))::bigint);
    RETURN NULL;
END $$;

-- Rotated refresh tokens are checked in the database at refresh time; only
-- revocations concern authenticated requests.
CREATE TRIGGER revoked_tokens_auth_notice
    AFTER INSERT OR UPDATE ON revoked_tokens
    FOR EACH ROW WHEN (NEW.reason = 'revoked')
    EXECUTE FUNCTION tally_auth_notify_revoked_token();

CREATE FUNCTION tally_auth_notify_revoked_family() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_auth',
        'family:' || NEW.family_id || ':' || floor(extract(epoch FROM NEW.expires_at))::bigint);
    RETURN NULL;
END $$;

CREATE TRIGGER revoked_token_families_auth_notice
    AFTER INSERT OR UPDATE ON revoked_token_families
    FOR EACH ROW EXECUTE FUNCTION tally_auth_notify_revoked_family();
