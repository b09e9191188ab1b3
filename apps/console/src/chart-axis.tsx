const HOUR = 3600_000;
const TIME = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });

export interface Tick {
  at: number;
  /** From the chart's left edge, in percent of its width. */
  left: number;
  /** Shown on narrow screens too; the others only where there is room for them. */
  major: boolean;
}

/**
 * The whole local hours every 3 hours between `from` and `from + span`, each where its bucket starts. Those
 * close to an edge are left out: their centred label would stick out of the chart.
 */
export function ticks(from: number, span: number): Tick[] {
  const found: Tick[] = [];
  for (let at = Math.ceil(from / HOUR) * HOUR; at < from + span; at += HOUR) {
    const hour = new Date(at).getHours();
    const left = ((at - from) / span) * 100;
    if (hour % 3 === 0 && left >= 8 && left <= 92) found.push({ at, left, major: hour % 6 === 0 });
  }
  return found;
}

/** The time labels under the chart (the bars' own times are in each bar's tooltip). */
export function TimeAxis({ ticks }: { ticks: Tick[] }) {
  return (
    <div class="axis" data-testid="activity-axis" aria-hidden="true">
      {ticks.map((tick) => (
        <span key={tick.at} class={tick.major ? 'tick' : 'tick minor'} style={{ left: `${tick.left}%` }}>
          {TIME.format(tick.at)}
        </span>
      ))}
    </div>
  );
}

/** A faint line up the chart at each labelled time. */
export function GridLines({ ticks, width, height }: { ticks: Tick[]; width: number; height: number }) {
  return (
    <g class="gridlines">
      {ticks.map((tick) => {
        const x = (tick.left / 100) * width;
        return (
          <line
            key={tick.at}
            class={tick.major ? undefined : 'minor'}
            x1={x}
            x2={x}
            y1={0}
            y2={height}
            vector-effect="non-scaling-stroke"
          />
        );
      })}
    </g>
  );
}
