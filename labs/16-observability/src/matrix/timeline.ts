// One row's evidence as a picture: a self-contained SVG (no script, no external font or style,
// no dependency), so it opens in any browser or Markdown viewer next to its JSON record.
//
//   state        coloured segments, one per sampled status, labelled "running a1" (attempts)
//   deliveries   a tick per worker delivery: the message id (short), claimed / published
//   lease        a segment per lease token while the row held it (short token id)
//   injected     red markers: what the row did on purpose (a fault, a kill, an action)
//   x axis       seconds since the row started
//
// Every text that comes from the evidence is escaped: an id or an error message may hold '&'
// or '<', and one unescaped character would make the whole file unreadable as XML.
import { escapeXml } from '@tasks-lab/lab-kit';
import type { DeliverySeen, EvidenceRecord, InjectedStep, ObservedState } from './evidence.ts';
import { shortId } from './evidence.ts';

/** What the timeline reads of a record. */
export type TimelineInput = Pick<
  EvidenceRecord<unknown>,
  | 'case'
  | 'title'
  | 'result'
  | 'started_at'
  | 'finished_at'
  | 'observed_states'
  | 'deliveries'
  | 'injected'
  | 'recovery_seconds'
> &
  Partial<Pick<EvidenceRecord<unknown>, 'recovery_window' | 'recovery_measure'>>;

const WIDTH = 960;
const LEFT = 110;
const RIGHT = 24;
const TOP = 46;
const LANE = 52;
const LANES = ['state', 'deliveries', 'lease tokens', 'injected'] as const;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const HEIGHT = TOP + LANE * LANES.length + 44;

const STATUS_COLOURS: Record<string, string> = {
  absent: '#eeeeee',
  queued: '#9ecae1',
  running: '#fdae6b',
  succeeded: '#74c476',
  failed: '#fb6a4a',
  cancelled: '#bdbdbd',
};
const TOKEN_COLOURS = ['#6baed6', '#9e9ac8', '#fd8d3c', '#74c476', '#e377c2'];

/** The row's length in ms: its recorded duration, or its last event if later; at least 1 s. */
function spanMs(e: TimelineInput): number {
  const recorded = Date.parse(e.finished_at) - Date.parse(e.started_at);
  const last = Math.max(
    0,
    ...e.observed_states.map((s) => s.at_ms),
    ...e.deliveries.map((d) => d.at_ms),
    ...e.injected.map((i) => i.at_ms),
  );
  const span = Math.max(Number.isFinite(recorded) ? recorded : 0, last + 100);
  return Math.max(1000, span);
}

const fixed = (n: number) => (Math.round(n * 10) / 10).toString();

/** A tick every 0.5, 1, 2, 5, 10 ... s: about eight of them across the plot. */
function tickStepMs(span: number): number {
  for (const step of [100, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000])
    if (span / step <= 10) return step;
  return 120_000;
}

interface Scale {
  x: (ms: number) => number;
  /** The first and last ms the plot shows. */
  start: number;
  end: number;
}

/** Where the plot starts: 0, unless nothing happens in the first fifth (a worker process starting). */
function startMs(e: TimelineInput, span: number): number {
  const first = Math.min(
    span,
    ...e.observed_states.map((s) => s.at_ms),
    ...e.deliveries.map((d) => d.at_ms),
    ...e.injected.map((i) => i.at_ms),
  );
  if (first < span / 5) return 0;
  const step = tickStepMs(span - first);
  return Math.max(0, Math.floor((first - step / 2) / step) * step);
}

/**
 * Labels on up to three lines of a lane: each goes on the first line where it does not run
 * into the one before it (a label near the right edge is drawn to the left of its mark).
 */
class LabelRows {
  readonly #rightEdges: number[];
  constructor(rows: number) {
    this.#rightEdges = Array.from({ length: rows }, () => -Infinity);
  }

  /** The row index and the x where the label starts, for a label of `chars` characters at `x`. */
  place(x: number, chars: number): { row: number; x: number; anchorEnd: boolean } {
    const width = chars * 6.2;
    const anchorEnd = x + width > WIDTH - RIGHT / 2;
    const left = anchorEnd ? x - 4 - width : x + 4;
    let row = this.#rightEdges.findIndex((edge) => edge < left);
    if (row === -1) row = this.#rightEdges.indexOf(Math.min(...this.#rightEdges));
    this.#rightEdges[row] = left + width;
    return { row, x: anchorEnd ? x - 4 : x + 4, anchorEnd };
  }
}

const laneTop = (index: number) => TOP + index * LANE;

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${fixed(x)}" y="${fixed(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(content)}</text>`;
}

function stateLane(states: readonly ObservedState[], s: Scale): string[] {
  const y = laneTop(0) + 10;
  if (states.length === 0) return [text(LEFT + 4, y + 20, 'no state sampled', 'class="none"')];
  return states.map((state, i) => {
    const x0 = s.x(state.at_ms);
    const x1 = s.x(states[i + 1]?.at_ms ?? s.end);
    const width = Math.max(1, x1 - x0);
    const label = `${state.status} a${state.attempts}`;
    const colour = STATUS_COLOURS[state.status] ?? '#d9d9d9';
    const shape = `<rect x="${fixed(x0)}" y="${y}" width="${fixed(width)}" height="28" fill="${colour}"><title>${escapeXml(`${label} from ${state.at_ms} ms`)}</title></rect>`;
    // A label only where it fits: a narrow segment keeps its tooltip.
    return width >= label.length * 6.2 ? `${shape}${text(x0 + 3, y + 18, label)}` : shape;
  });
}

function deliveryLane(deliveries: readonly DeliverySeen[], s: Scale): string[] {
  const top = laneTop(1);
  if (deliveries.length === 0) return [text(LEFT + 4, top + 30, 'no delivery seen', 'class="none"')];
  const rows = new LabelRows(3);
  return deliveries.map((d) => {
    const x = s.x(d.at_ms);
    const what = d.error
      ? `failed: ${d.error}`
      : d.published
        ? 'published'
        : d.claimed
          ? 'claimed, not published'
          : 'not claimed';
    const label = `${shortId(d.message_id)} ${what}`.slice(0, 48);
    const at = rows.place(x, label.length);
    const tooltip = `${d.message_id}: ${what}${d.note ? `, ${d.note}` : ''}${d.lease_token ? `, token ${d.lease_token}` : ''}${d.by ? ` (${d.by})` : ''}`;
    return (
      `<line x1="${fixed(x)}" y1="${top + 4}" x2="${fixed(x)}" y2="${top + 48}" class="${d.published ? 'published' : d.error ? 'failed' : 'delivery'}"><title>${escapeXml(tooltip)}</title></line>` +
      text(at.x, top + 15 + at.row * 14, label, at.anchorEnd ? 'text-anchor="end"' : '')
    );
  });
}

/** The token segments: a run of samples holding the same token. */
export function leaseSegments(
  states: readonly ObservedState[],
  end: number,
): { token: string; from: number; to: number }[] {
  const segments: { token: string; from: number; to: number }[] = [];
  for (const [i, state] of states.entries()) {
    if (state.lease_token === null) continue;
    const to = states[i + 1]?.at_ms ?? end;
    const last = segments.at(-1);
    if (last && last.token === state.lease_token && last.to === state.at_ms) last.to = to;
    else segments.push({ token: state.lease_token, from: state.at_ms, to });
  }
  return segments;
}

function leaseLane(states: readonly ObservedState[], s: Scale): string[] {
  const y = laneTop(2) + 12;
  const segments = leaseSegments(states, s.end);
  if (segments.length === 0) return [text(LEFT + 4, y + 18, 'no lease held', 'class="none"')];
  const colourOf = new Map<string, string>();
  return segments.map((seg) => {
    if (!colourOf.has(seg.token)) colourOf.set(seg.token, TOKEN_COLOURS[colourOf.size % TOKEN_COLOURS.length]!);
    const x0 = s.x(seg.from);
    const width = Math.max(1, s.x(seg.to) - x0);
    const label = `token ${shortId(seg.token)}`;
    // Inside the bar when it fits; otherwise beside it, on the side with room.
    const fits = width >= label.length * 6.2 + 6;
    const beside =
      x0 + width + label.length * 6.2 + 8 > WIDTH
        ? text(x0 - 4, y + 15, label, 'text-anchor="end"')
        : text(x0 + width + 4, y + 15, label);
    return (
      `<rect x="${fixed(x0)}" y="${y}" width="${fixed(width)}" height="22" fill="${colourOf.get(seg.token)}"><title>${escapeXml(`lease token ${seg.token}`)}</title></rect>` +
      (fits ? text(x0 + 3, y + 15, label) : beside)
    );
  });
}

function injectedLane(injected: readonly InjectedStep[], s: Scale): string[] {
  const top = laneTop(3);
  if (injected.length === 0) return [text(LEFT + 4, top + 30, 'nothing injected', 'class="none"')];
  const rows = new LabelRows(3);
  return injected.map((step) => {
    const x = s.x(step.at_ms);
    const marker = `<path d="M${fixed(x)} ${top + 4} l5 9 h-10 z" class="fault"><title>${escapeXml(`${step.at_ms} ms: ${step.what}`)}</title></path>`;
    const guide = `<line x1="${fixed(x)}" y1="${TOP}" x2="${fixed(x)}" y2="${top + 4}" class="guide"/>`;
    // Long descriptions are cut in the picture; the tooltip and the JSON keep them whole.
    const label = step.what.length > 60 ? `${step.what.slice(0, 57)}...` : step.what;
    const at = rows.place(x, label.length);
    return guide + marker + text(at.x, top + 24 + at.row * 13, label, at.anchorEnd ? 'text-anchor="end"' : '');
  });
}

/** The measured recovery: a green bar under the lanes, from its start to its end. */
function recoveryBar(e: TimelineInput, s: Scale): string[] {
  const w = e.recovery_window;
  if (!w || e.recovery_seconds === null) return [];
  const y = TOP + LANE * LANES.length + 1;
  const x0 = s.x(w.from_ms);
  const x1 = Math.max(x0 + 2, s.x(w.to_ms));
  const label = `recovery ${e.recovery_seconds.toFixed(2)} s${e.recovery_measure ? ` (${e.recovery_measure})` : ''}`;
  const width = label.length * 6.2;
  // Over the bar when it is long enough, else after it, else before it.
  const at =
    x1 - x0 >= width + 8
      ? { x: x0 + 4, anchor: '' }
      : x1 + 4 + width <= WIDTH
        ? { x: x1 + 4, anchor: '' }
        : { x: x0 - 4, anchor: 'text-anchor="end" ' };
  return [
    `<rect x="${fixed(x0)}" y="${y}" width="${fixed(x1 - x0)}" height="4" class="recovery"><title>${escapeXml(label)}</title></rect>`,
    text(at.x, y - 3, label, `${at.anchor}class="recovered"`),
  ];
}

function axis(s: Scale): string[] {
  const y = TOP + LANE * LANES.length + 6;
  const parts = [`<line x1="${LEFT}" y1="${y}" x2="${LEFT + PLOT_WIDTH}" y2="${y}" class="axis"/>`];
  const step = tickStepMs(s.end - s.start);
  for (let ms = s.start; ms <= s.end; ms += step) {
    const x = s.x(ms);
    parts.push(
      `<line x1="${fixed(x)}" y1="${y}" x2="${fixed(x)}" y2="${y + 5}" class="axis"/>`,
      text(x, y + 18, `${ms / 1000}`, 'text-anchor="middle"'),
    );
  }
  parts.push(text(LEFT + PLOT_WIDTH, y + 34, 'seconds since the row started', 'text-anchor="end"'));
  return parts;
}

/** The row's timeline, as a complete SVG document. */
export function renderTimeline(evidence: TimelineInput): string {
  const span = spanMs(evidence);
  const start = startMs(evidence, span);
  const scale: Scale = {
    x: (ms) => LEFT + ((Math.min(Math.max(ms, start), span) - start) / (span - start)) * PLOT_WIDTH,
    start,
    end: span,
  };
  const recovery =
    evidence.recovery_seconds === null ? 'no recovery time' : `recovered in ${evidence.recovery_seconds.toFixed(2)} s`;
  const heading = `${evidence.case}: ${evidence.result} (${recovery})`;
  const lanes = LANES.map((name, i) => {
    const top = laneTop(i);
    return (
      `<rect x="0" y="${top}" width="${WIDTH}" height="${LANE}" class="${i % 2 === 0 ? 'even' : 'odd'}"/>` +
      text(8, top + LANE / 2 + 4, name, 'class="lane"')
    );
  });
  const body = [
    ...lanes,
    ...stateLane(evidence.observed_states, scale),
    ...deliveryLane(evidence.deliveries, scale),
    ...leaseLane(evidence.observed_states, scale),
    ...injectedLane(evidence.injected, scale),
    ...recoveryBar(evidence, scale),
    ...axis(scale),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(`${heading}: ${evidence.title}`)}</title>`,
    '<style>.even{fill:#fafafa}.odd{fill:#f3f3f3}.lane{font-weight:bold;fill:#333}.none{fill:#999;font-style:italic}' +
      '.axis{stroke:#555}.guide{stroke:#d62728;stroke-dasharray:3 3}.fault{fill:#d62728}.delivery{stroke:#3182bd;stroke-width:2}.published{stroke:#31a354;stroke-width:3}.failed{stroke:#d62728;stroke-width:2}.recovery{fill:#31a354}.recovered{fill:#31a354;font-weight:bold}</style>',
    `<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(8, 18, heading, 'font-size="14" font-weight="bold"'),
    text(8, 36, evidence.title.slice(0, 150)),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
