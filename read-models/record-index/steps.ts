/**
 * Work in steps: a builder of the in-process index (folded text, gram and text postings, row
 * bitsets, row orders) is written once, as a generator that yields between slices of its rows
 * (every STEP rows or so). A request that needs the structure at once drains it (`finish`); the
 * background build (in-slices.ts) runs it a few milliseconds at a time and gives the event loop back in
 * between (object-store.ts, ADR 0019), so one tenant's first query of a large object
 * never holds every other request.
 */
export type Steps<T> = Generator<undefined, T, undefined>;

/** Rows a builder handles between two yields. */
export const STEP = 2048;

/** Runs steps to their end, at once. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `rows` sorted by `order`, in steps: runs of RUN rows sorted as they are, then merged pairwise
 * (a bottom-up merge sort, each pass a walk of the rows). `order` must be total (the record
 * sorts end with the uuid), so the result is the one `Array.prototype.sort` gives.
 */
export function* sortSteps(rows: Int32Array, order: (a: number, b: number) => number): Steps<Int32Array> {
  const RUN = 1024;
  const n = rows.length;
  for (let lo = 0; lo < n; lo += RUN) {
    rows.subarray(lo, Math.min(n, lo + RUN)).sort(order);
    if (lo % STEP === 0) yield;
  }
  let from: Int32Array = rows;
  let to: Int32Array = new Int32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    let done = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        to[k++] = order(from[i]!, from[j]!) <= 0 ? from[i++]! : from[j++]!;
        if (++done % STEP === 0) yield;
      }
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
    }
    [from, to] = [to, from];
    yield;
  }
  return from;
}
