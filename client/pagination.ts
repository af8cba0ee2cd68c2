/** One page of a list answer (spec 2.1), its envelope unwrapped. Pages count from 0. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
  lastPage: number;
}

/** A list envelope `{message, data: [...], total, page, perPage, lastPage}` as a Page. */
export function pageOf<T>(body: unknown): Page<T> {
  const b = body as { data?: T[]; total?: number; page?: number; perPage?: number; lastPage?: number };
  if (!b || !Array.isArray(b.data) || typeof b.total !== 'number') throw new TypeError('not a list answer: no data array and total');
  return { items: b.data, total: b.total, page: b.page ?? 0, perPage: b.perPage ?? b.data.length, lastPage: b.lastPage ?? 0 };
}

/** Every item of every page from `first` to the last one the server names. */
export async function* walkPages<T>(fetchPage: (n: number) => Promise<Page<T>>, first = 0): AsyncGenerator<T> {
  for (let n = first; ; n++) {
    const p = await fetchPage(n);
    yield* p.items;
    if (n >= p.lastPage || p.items.length === 0) return;
  }
}

/** An async iterable's items in an array (at most `max`, 100,000 by default, so a runaway list stops). */
export async function collect<T>(items: AsyncIterable<T>, max = 100_000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
