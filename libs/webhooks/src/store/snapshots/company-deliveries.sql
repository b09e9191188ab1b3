SELECT count(*)::int AS n FROM webhook_deliveries WHERE company_uuid = $1
