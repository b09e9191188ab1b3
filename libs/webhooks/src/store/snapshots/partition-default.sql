CREATE TABLE IF NOT EXISTS "webhook_request_logs_default" PARTITION OF "webhook_request_logs" DEFAULT
