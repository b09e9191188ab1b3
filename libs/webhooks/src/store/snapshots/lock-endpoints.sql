SELECT uuid FROM webhook_endpoints WHERE uuid = ANY($1::uuid[]) ORDER BY uuid FOR NO KEY UPDATE
