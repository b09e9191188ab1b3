SELECT to_regclass($1) IS NOT NULL AS present
