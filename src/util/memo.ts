/**
 * Values worked out once per pair of strings, in nested maps: the strings of a hook's rows are
 * the same objects delivery after delivery, so the lookups reuse their hashes (a key made of both
 * would be a new string each time). Emptied when it holds more than `max` values.
 */
export class PairMemo<V> {
  private readonly byFirst = new Map<string, Map<string, V>>();
  private count = 0;

  constructor(private readonly max: number) {}

  /** The value of (`a`, `b`), `make(a, b)` the first time. */
  get(a: string, b: string, make: (a: string, b: string) => V): V {
    let bySecond = this.byFirst.get(a);
    if (!bySecond) this.byFirst.set(a, (bySecond = new Map()));
    let value = bySecond.get(b);
    if (value === undefined) {
      value = make(a, b);
      if (++this.count > this.max) {
        this.byFirst.clear();
        this.count = 1;
        this.byFirst.set(a, (bySecond = new Map()));
      }
      bySecond.set(b, value);
    }
    return value;
  }
}
