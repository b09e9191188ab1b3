import { useEffect, useState } from 'preact/hooks';
import { Activity, ActivityBucket, api, query } from './api';
import { GridLines, TimeAxis, ticks } from './chart-axis';
import { useLive } from './live';
import { ErrorMessage, Panel } from './ui';

type Counts = Omit<ActivityBucket, 'at'>;
const KINDS: { key: keyof Counts; label: string }[] = [
  { key: 'successful', label: 'successful' },
  { key: 'retrying', label: 'retrying' },
  { key: 'failed', label: 'failed' },
];
const STEP = { hour: 3600_000, minute: 60_000 };
const WIDTH = 720;
const HEIGHT = 160;

/** Every bucket from `from` to `to`, the empty ones too. */
function fill(activity: Activity): ActivityBucket[] {
  const step = STEP[activity.interval];
  const from = new Date(activity.from).getTime();
  const count = Math.floor((new Date(activity.to).getTime() - from) / step) + 1;
  const byTime = new Map(activity.buckets.map((b) => [new Date(b.at).getTime(), b]));
  return Array.from({ length: count }, (_, i) => {
    const at = from + i * step;
    return byTime.get(at) ?? { at: new Date(at).toISOString(), successful: 0, failed: 0, retrying: 0 };
  });
}

/**
 * Attempts per hour or minute over the last 24 h (GET /webhook-activity), of the company or one endpoint,
 * as stacked SVG bars; new log rows from the live stream are counted in as they arrive.
 */
export function ActivityChart({ endpoint }: { endpoint?: string }) {
  const [interval, setBucketSize] = useState<'hour' | 'minute'>('hour');
  const [activity, setActivity] = useState<Activity | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    api('GET', `/webhook-activity${query({ interval, webhook_endpoint_uuid: endpoint })}`)
      .then((body) => live && setActivity(body.webhook_activity))
      .catch((caught: unknown) => live && setError(caught));
    return () => void (live = false);
  }, [interval, endpoint]);

  useLive(
    (event) => {
      if (event.type !== 'request_log' || event.log.test) return;
      if (endpoint && event.log.webhook_endpoint_uuid !== endpoint) return;
      setActivity((current) => {
        if (!current) return current;
        const step = STEP[current.interval];
        const sent = new Date(event.log.sent_at).getTime();
        const at = new Date(Math.floor(sent / step) * step).toISOString();
        const kind: keyof Counts =
          event.log.status === 'successful'
            ? 'successful'
            : event.log.attempt < current.max_attempts
              ? 'retrying'
              : 'failed';
        const buckets = current.buckets.some((b) => new Date(b.at).toISOString() === at)
          ? current.buckets.map((b) =>
              new Date(b.at).toISOString() === at ? { ...b, [kind]: b[kind] + 1 } : b,
            )
          : [...current.buckets, { at, successful: 0, failed: 0, retrying: 0, [kind]: 1 }];
        const to = new Date(Math.max(new Date(current.to).getTime(), sent)).toISOString();
        return { ...current, to, buckets, totals: { ...current.totals, [kind]: current.totals[kind] + 1 } };
      });
    },
    [endpoint],
  );

  const buckets = activity ? fill(activity) : [];
  const max = Math.max(1, ...buckets.map((b) => b.successful + b.retrying + b.failed));
  const barWidth = buckets.length ? WIDTH / buckets.length : WIDTH;
  const times = activity
    ? ticks(new Date(activity.from).getTime(), buckets.length * STEP[activity.interval])
    : [];
  return (
    <Panel title={endpoint ? 'Activity of this endpoint' : 'Activity'}>
      <div class="filters">
        <label>
          Per{' '}
          <select
            value={interval}
            onChange={(e) => setBucketSize(e.currentTarget.value as 'hour' | 'minute')}
            aria-label="Bucket size"
          >
            <option value="hour">hour</option>
            <option value="minute">minute</option>
          </select>
        </label>
        {activity && (
          <span data-testid="activity-totals">
            Last 24 h:{' '}
            {KINDS.map(({ key, label }, i) => (
              <span key={key}>
                {i > 0 && ' · '}
                <strong data-testid={`total-${key}`}>{activity.totals[key]}</strong> {label}
              </span>
            ))}
          </span>
        )}
      </div>
      <ErrorMessage error={error} />
      {activity && (
        <>
          <svg
            class="chart"
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            preserveAspectRatio="none"
            role="img"
            aria-label={`Attempts per ${interval}: ${activity.totals.successful} successful, ${activity.totals.retrying} retrying, ${activity.totals.failed} failed`}
            data-testid="activity-chart"
          >
            <GridLines ticks={times} width={WIDTH} height={HEIGHT} />
            {buckets.map((bucket, i) => {
              let y = HEIGHT;
              const total = bucket.successful + bucket.retrying + bucket.failed;
              if (!total) return null;
              return (
                <g
                  key={bucket.at}
                  class="bucket"
                  data-at={bucket.at}
                  data-successful={bucket.successful}
                  data-retrying={bucket.retrying}
                  data-failed={bucket.failed}
                >
                  <title>
                    {new Date(bucket.at).toLocaleString()}: {bucket.successful} successful, {bucket.retrying}{' '}
                    retrying, {bucket.failed} failed
                  </title>
                  {KINDS.map(({ key }) => {
                    const h = (bucket[key] / max) * (HEIGHT - 4);
                    y -= h;
                    return h > 0 ? (
                      <rect
                        key={key}
                        class={key}
                        x={i * barWidth}
                        y={y}
                        width={Math.max(1, barWidth - 1)}
                        height={h}
                      />
                    ) : null;
                  })}
                </g>
              );
            })}
          </svg>
          <TimeAxis ticks={times} />
        </>
      )}
      <p class="legend muted">
        <span class="swatch successful" /> successful <span class="swatch retrying" /> retrying{' '}
        <span class="swatch failed" /> failed (test sends are not counted)
      </p>
    </Panel>
  );
}
