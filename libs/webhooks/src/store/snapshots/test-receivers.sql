SELECT ep.uuid FROM webhook_endpoints ep
WHERE ep.company_uuid = $1 AND ep.status = 'enabled' AND (ep.events ? $2::text OR ep.events ? '*' AND NOT $2::text = ANY('{endpoint.disabled,endpoint.enabled,endpoint.throttled,endpoint.unthrottled,endpoint.recovered,delivery.exhausted}'::text[]))
      AND (ep.filter_path IS NULL OR jsonb_path_match($3::jsonb, ep.filter_path, ep.filter_vars))
ORDER BY ep.created_at, ep.uuid
