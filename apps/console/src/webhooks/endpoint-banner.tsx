import { Endpoint } from '../api';
import { MANUAL_DISABLE_REASON, formatTime } from '../ui';

/**
 * Why an endpoint is not receiving normally, at the top of its page: disabled (by a person, or by the
 * worker after a 410 or days of failures) or throttled after timeouts, with the reason recorded.
 */
export function EndpointBanner({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.status === 'disabled') {
    const automatic = Boolean(endpoint.disabled_reason) && endpoint.disabled_reason !== MANUAL_DISABLE_REASON;
    return (
      <div class="banner danger" role="status" data-testid="endpoint-banner">
        <strong>{automatic ? 'Disabled automatically' : 'Disabled'}</strong>{' '}
        {formatTime(endpoint.disabled_at)}
        {endpoint.disabled_reason && <>: {endpoint.disabled_reason}</>} Nothing is delivered to it until it is
        enabled again.
      </div>
    );
  }
  if (endpoint.throttled)
    return (
      <div class="banner" role="status" data-testid="endpoint-banner">
        <strong>Throttled</strong>: {endpoint.throttled_reason ?? 'attempts timed out.'}
      </div>
    );
  return null;
}

/** Above the endpoint list: how many endpoints are disabled or throttled, and which. */
export function AttentionNotice({ endpoints }: { endpoints: Endpoint[] }) {
  const disabled = endpoints.filter((e) => e.status === 'disabled');
  const throttled = endpoints.filter((e) => e.status === 'enabled' && e.throttled);
  if (!disabled.length && !throttled.length) return null;
  const count = (n: number, what: string) => `${n} endpoint${n === 1 ? '' : 's'} ${what}`;
  return (
    <div class="banner" role="status" data-testid="endpoints-notice">
      {[
        disabled.length ? count(disabled.length, 'disabled') : '',
        throttled.length ? count(throttled.length, 'throttled') : '',
      ]
        .filter(Boolean)
        .join(', ')}
      :{' '}
      {[...disabled, ...throttled].map((e, i) => (
        <span key={e.uuid}>
          {i > 0 && '; '}
          <a href={`#/webhooks/${e.uuid}`}>{e.url}</a> (
          {e.status === 'disabled' ? (e.disabled_reason ?? 'disabled') : e.throttled_reason})
        </span>
      ))}
    </div>
  );
}
