import { fold } from '../record-filter/values.js';

/**
 * What the read model indexes of a record's values, computed here, once, so that the SQL index
 * and the in-memory evaluator fold text the same way.
 *
 * - `entries`: one typed pivot entry per atom: a string (`t` as sent, `tf` folded for contains /
 *   startsWith / endsWith), a number or a boolean (`n`; false 0, true 1). A list gives one entry
 *   per string element; json objects give none.
 * - `text`: the text atoms joined, for the free-text tsvector.
 */
export interface IndexEntry {
  name: string;
  t: string | null;
  tf: string | null;
  n: number | null;
}

export interface IndexDoc {
  entries: IndexEntry[];
  text: string;
}

export function indexDoc(values: Readonly<Record<string, unknown>>, only?: ReadonlySet<string>): IndexDoc {
  const entries: IndexEntry[] = [];
  const text: string[] = [];
  for (const name of Object.keys(values).sort()) {
    if (only && !only.has(name)) continue;
    const v = values[name];
    if (typeof v === 'string') {
      entries.push({ name, t: v, tf: fold(v), n: null });
      text.push(v);
    } else if (typeof v === 'number') {
      entries.push({ name, t: null, tf: null, n: v });
    } else if (typeof v === 'boolean') {
      entries.push({ name, t: null, tf: null, n: v ? 1 : 0 });
    } else if (Array.isArray(v)) {
      for (const a of new Set(v)) {
        if (typeof a !== 'string') continue;
        entries.push({ name, t: a, tf: fold(a), n: null });
        text.push(a);
      }
    }
  }
  return { entries, text: text.join(' \n ') };
}

const holdsText = (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.some((a) => typeof a === 'string'));

/**
 * Whether changing these values (before and after, per property) changes the free-text document:
 * only text atoms are in it (`indexDoc`'s `text`). When none changed, the record's `search` is
 * kept as it is, so the update rewrites no GIN entry (and may be HOT).
 */
export function touchesText(changes: Readonly<Record<string, { before?: unknown; after?: unknown }>>): boolean {
  return Object.values(changes).some((c) => holdsText(c.before) || holdsText(c.after));
}

/** C0 control characters other than tab, newline and carriage return: refused in text values. */
export const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f]/;
