SELECT relname AS "table", n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
  n_mod_since_analyze::float8 AS modified, coalesce(last_analyze, last_autoanalyze) IS NULL AS never_analyzed
FROM pg_stat_user_tables
WHERE relid = ANY($1::regclass[])
