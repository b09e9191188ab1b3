SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = $1::regclass
