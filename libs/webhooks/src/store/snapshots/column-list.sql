SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS list FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
