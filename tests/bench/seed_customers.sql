-- :customers customers for the list benchmark, set-based. Ids are md5(<kind><n>)::uuid so rows can
-- point at each other without joins; n = 1 is the newest. A quarter per status, tiers in runs of four,
-- one in ten tagged vip, one in ten b2b+eu, twenty sales reps.
INSERT INTO users (id, email, name, password_hash)
SELECT md5('rep' || n)::uuid, 'rep' || n || '@bench.test', 'Rep ' || n, 'not-a-hash'
FROM generate_series(1, 20) AS n;

INSERT INTO customers (id, name, email, phone, status, tier, assigned_to, tags, source, created_at, updated_at, churned_at)
SELECT md5('c' || n)::uuid, 'Customer ' || n, 'c' || n || '@bench.test', '+1555' || lpad(n::text, 7, '0'),
       (ARRAY['lead', 'prospect', 'customer', 'churned'])[1 + n % 4],
       (ARRAY['free', 'basic', 'pro', 'enterprise'])[1 + (n / 4) % 4],
       md5('rep' || (1 + n % 20))::uuid,
       CASE n % 10 WHEN 0 THEN ARRAY['vip'] WHEN 1 THEN ARRAY['b2b', 'eu'] ELSE '{}'::text[] END,
       'bench', now() - make_interval(secs => n), now() - make_interval(secs => n),
       CASE WHEN n % 4 = 3 THEN now() END
FROM generate_series(1, :customers) AS n;

ANALYZE users;
ANALYZE customers;
