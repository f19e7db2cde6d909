/**
 * Counters and histograms kept in this process, written in Prometheus' text format (version
 * 0.0.4) by `GET /metrics`. Written here rather than with prom-client: the format is a few lines,
 * and a request's observation is one Map lookup by a label string its route computed once.
 */

/** `name{a="x",b="y"}`'s label part, values escaped as the format asks. */
export function labels(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`)
    .join(',');
}

/** A number as the format writes it (seconds with their fractions, +Inf). */
function num(v: number): string {
  return v === Infinity ? '+Inf' : Number.isInteger(v) ? String(v) : String(Math.round(v * 1e9) / 1e9);
}

/** `# HELP` and `# TYPE` of a family. */
export function header(name: string, type: 'counter' | 'gauge' | 'histogram' | 'summary', help: string): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
}

/** One sample line. */
export function sample(name: string, labelText: string, value: number): string {
  return `${name}${labelText ? `{${labelText}}` : ''} ${num(value)}\n`;
}

/** A counter by label set (the labels as `labels()` wrote them). */
export class Counter {
  private readonly values = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labelText = '', by = 1): void {
    this.values.set(labelText, (this.values.get(labelText) ?? 0) + by);
  }

  /** The count of one label set (tests, and sums of several). */
  get(labelText = ''): number {
    return this.values.get(labelText) ?? 0;
  }

  render(): string {
    let out = header(this.name, 'counter', this.help);
    for (const [l, v] of this.values) out += sample(this.name, l, v);
    return out;
  }
}

interface HistogramSeries {
  /** observations at or under each bucket's bound (not yet cumulative) */
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram by label set, with fixed bucket bounds. */
export class Histogram {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labelText: string, value: number): void {
    let s = this.series.get(labelText);
    if (!s) this.series.set(labelText, (s = { counts: new Array(this.bounds.length).fill(0), sum: 0, count: 0 }));
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    if (i < this.bounds.length) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  render(): string {
    let out = header(this.name, 'histogram', this.help);
    for (const [l, s] of this.series) {
      const sep = l ? `${l},` : '';
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += s.counts[i];
        out += sample(`${this.name}_bucket`, `${sep}le="${num(this.bounds[i])}"`, cumulative);
      }
      out += sample(`${this.name}_bucket`, `${sep}le="+Inf"`, s.count);
      out += sample(`${this.name}_sum`, l, s.sum);
      out += sample(`${this.name}_count`, l, s.count);
    }
    return out;
  }
}
