// Live views (docs/ui.md): charts of the proxy's own counters (read every second, rates derived here from a
// short ring of reads) and the access-log tail (a long poll of the lines the listeners' access logs write).
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type AccessEntry, type AccessTailView, type LivePoint, type MetricsView } from './api.js';

/** Reads kept: a minute at one read a second. */
const RING = 60;
const EVERY_MS = 1000;

type Breakdown = Exclude<keyof MetricsView, 'at' | 'worker'>;

/** The value of each key in one read. */
const valuesOf = (points: LivePoint[]): Map<string, number> => new Map(points.map((p) => [p.key, p.value]));

/** Per second between two reads; a counter that went back (registered again) counts from zero. */
function rate(now: number | undefined, before: number | undefined, seconds: number): number {
  const d = (now ?? 0) - (before ?? 0);
  return (d < 0 ? (now ?? 0) : d) / seconds;
}

interface Series {
  key: string;
  points: number[];
  /** The counter's value at the last read (requests, tokens, dollars since the start). */
  total: number;
}

/** One series per key of `pick` across the ring: the rate between consecutive reads, or `derive`'s value. */
function seriesOf(
  ring: MetricsView[],
  pick: Breakdown,
  derive?: (now: MetricsView, before: MetricsView, key: string) => number,
): Series[] {
  const last = ring[ring.length - 1];
  if (!last) return [];
  return last[pick].map(({ key, value }) => {
    const points: number[] = [];
    for (let i = 1; i < ring.length; i++) {
      const [before, now] = [ring[i - 1] as MetricsView, ring[i] as MetricsView];
      const seconds = Math.max(0.001, (now.at - before.at) / 1000);
      points.push(
        derive
          ? derive(now, before, key)
          : rate(valuesOf(now[pick]).get(key), valuesOf(before[pick]).get(key), seconds),
      );
    }
    return { key, points, total: value };
  });
}

/** Mean latency in ms between two reads: Δsum / Δcount of the route's histogram. */
function meanLatency(now: MetricsView, before: MetricsView, key: string): number {
  const count = rate(valuesOf(now.latencyCountByRoute).get(key), valuesOf(before.latencyCountByRoute).get(key), 1);
  const sum = rate(valuesOf(now.latencySumByRoute).get(key), valuesOf(before.latencySumByRoute).get(key), 1);
  return count > 0 ? (sum / count) * 1000 : 0;
}

const COLORS = ['#2457c5', '#1a7f37', '#b42318', '#8250df', '#bf8700', '#0a7ea4', '#cf222e', '#57606a'];
const W = 420;
const H = 120;

function fmt(n: number): string {
  if (Number.isInteger(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(2);
}

/** A hand-drawn line chart: one polyline per series over the ring's reads, y from zero to the highest point. */
function Chart(props: { id: string; title: string; unit: string; totalUnit?: string; series: Series[] }) {
  const max = Math.max(0, ...props.series.flatMap((s) => s.points));
  const top = max > 0 ? max * 1.1 : 1;
  // The newest point on the right edge: a short ring fills from the right as reads come in.
  const step = W / (RING - 2);
  const x = (i: number, n: number): number => W - (n - 1 - i) * step;
  const y = (v: number): number => H - (v / top) * H;
  return (
    <section class="chart" data-testid={`chart-${props.id}`}>
      <h2>{props.title}</h2>
      {props.series.length === 0 ? (
        <p class="muted">Nothing counted yet.</p>
      ) : (
        <>
          <svg class="plot" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={props.title}>
            <line x1="0" y1={H} x2={W} y2={H} stroke="#d9dde5" />
            <text x="2" y="10" font-size="10" fill="#5b6475">
              {fmt(top)} {props.unit}
            </text>
            {props.series.map((s, n) => (
              <polyline
                key={s.key}
                data-series={s.key}
                data-peak={String(Math.max(0, ...s.points))}
                fill="none"
                stroke={COLORS[n % COLORS.length]}
                stroke-width="1.5"
                points={s.points.map((v, i) => `${x(i, s.points.length).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
              />
            ))}
          </svg>
          <ul class="plain legend">
            {props.series.map((s, n) => (
              <li key={s.key}>
                <svg width="10" height="10" aria-hidden="true">
                  <rect width="10" height="10" fill={COLORS[n % COLORS.length]} />
                </svg>{' '}
                <code>{s.key}</code>{' '}
                <span class="muted">
                  now {fmt(s.points[s.points.length - 1] ?? 0)} {props.unit}
                  {props.totalUnit ? `, ${fmt(s.total)} ${props.totalUnit} in all` : ''}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function ChartsView() {
  const [ring, setRing] = useState<MetricsView[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    const read = (): void =>
      void getJson<MetricsView>('metrics').then(
        (m) => {
          if (!live) return;
          setError('');
          setRing((r) => [...r.slice(-(RING - 1)), m]);
        },
        (err: Error) => live && setError(err.message),
      );
    read();
    const timer = setInterval(read, EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  const worker = ring[ring.length - 1]?.worker;
  return (
    <>
      {error ? <section class="error">{error}</section> : null}
      <p class="muted" data-testid="charts-note">
        Rates per second between reads of this proxy's own counters, once a second, the last minute
        {worker ? ` (worker ${worker} only)` : ''}. Tokens and cost count answers whose usage the provider reported.
      </p>
      <div class="charts">
        <Chart id="requests" title="Requests by route" unit="req/s" totalUnit="requests" series={seriesOf(ring, 'requestsByRoute')} />
        <Chart id="classes" title="Responses by status class" unit="req/s" totalUnit="responses" series={seriesOf(ring, 'requestsByClass')} />
        <Chart id="latency" title="Mean latency by route" unit="ms" series={seriesOf(ring, 'latencyCountByRoute', meanLatency)} />
        <Chart id="errors" title="Proxy errors by code" unit="err/s" totalUnit="errors" series={seriesOf(ring, 'errorsByCode')} />
        <Chart id="tokens" title="Tokens by model" unit="tok/s" totalUnit="tokens" series={seriesOf(ring, 'tokensByModel')} />
        <Chart id="cost" title="Cost by model" unit="USD/s" totalUnit="USD" series={seriesOf(ring, 'costByModel')} />
        <Chart id="tools" title="MCP tool calls by tool" unit="calls/s" totalUnit="calls" series={seriesOf(ring, 'toolCallsByTool')} />
      </div>
    </>
  );
}

/** Lines kept on the page. */
const KEEP = 200;

export function AccessLogView() {
  const [entries, setEntries] = useState<AccessEntry[]>([]);
  const [info, setInfo] = useState<{ listeners: string[]; dropped: number; worker: number | null }>();
  const [error, setError] = useState('');
  useEffect(() => {
    const stop = new AbortController();
    // The first call answers at once (the listeners with an access log); later ones wait for a line.
    let after = -1;
    const poll = async (): Promise<void> => {
      while (!stop.signal.aborted) {
        try {
          const t = await getJson<AccessTailView>(after < 0 ? 'access-log?after=0&wait=0' : `access-log?after=${after}`, { signal: stop.signal });
          after = t.last;
          setError('');
          setInfo((i) => ({ listeners: t.listeners, dropped: (i?.dropped ?? 0) + t.dropped, worker: t.worker }));
          if (t.entries.length > 0) setEntries((e) => [...t.entries.reverse(), ...e].slice(0, KEEP));
        } catch (err) {
          if (stop.signal.aborted) return;
          setError((err as Error).message);
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    void poll();
    return () => stop.abort();
  }, []);
  return (
    <section data-testid="access-log">
      <h2>Access log (live)</h2>
      {error ? <p class="bad">{error}</p> : null}
      <p class="muted">
        The lines this proxy's access logs write from now on, newest first: each listener's own{' '}
        <code>frontend.accessLog</code> filter and attributes apply; MCP session references are left out.
        {info ? ` Listeners with an access log: ${info.listeners.join(', ') || 'none (set GwPolicy frontend.accessLog)'}.` : ''}
        {info?.worker ? ` Worker ${info.worker} only.` : ''}
        {info?.dropped ? ` ${info.dropped} line(s) came faster than this page read them.` : ''}
      </p>
      {entries.length === 0 ? (
        <p class="muted">Waiting for requests…</p>
      ) : (
        <table>
          <tbody>
            {entries.map((e) => (
              <tr key={e.seq} data-testid="access-row">
                <td>
                  <code>{e.listener}</code>
                </td>
                <td>
                  {Object.entries(e.fields).map(([k, v]) => (
                    <Fragment key={k}>
                      <span class="field">
                        <span class="muted">{k}=</span>
                        <code>{String(v)}</code>
                      </span>{' '}
                    </Fragment>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
