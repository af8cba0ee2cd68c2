import { fold } from '../record-filter/values.js';

/**
 * What the read model indexes of a record's values, computed once here so the SQL index and the
 * in-memory evaluator fold text the same way.
 *
 * - `tdoc`: every string atom as `\x01<property code>\x02<folded atom>`, then a closing `\x01`. A
 *   regular expression over it answers contains / startsWith / endsWith exactly for one property,
 *   and a trigram index over it finds the candidates. Text values may not hold \x01 or \x02.
 * - `text`: the text atoms joined, for the free-text tsvector.
 * - `sortable`: one typed entry per scalar value (text or number), for the ordered pivot.
 */
export interface IndexDoc {
  tdoc: string;
  text: string;
  sortable: { name: string; t: string | null; n: number | null }[];
}

export const SEGMENT = '\u0001';
export const VALUE = '\u0002';

// Property names are written in punctuation only (two marks per character, a bijection), so the
// trigram index sees no words in them: a segment marker adds nothing to the trigrams a search
// must intersect, and two names never share a code.
const MARKS = '!#$%&*+,';
const NAME_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';

/** A property name as its punctuation code (names are identifiers: letters, digits, `_`). */
export function nameCode(name: string): string {
  let out = '';
  for (const ch of name) {
    const i = NAME_CHARS.indexOf(ch);
    // Not an identifier character (names are identifiers, so only defensively): '~' and its code
    // point in marks, which no pair starts with.
    if (i < 0) {
      const c = ch.codePointAt(0)!;
      out += `~${MARKS[(c >> 18) & 7]}${MARKS[(c >> 15) & 7]}${MARKS[(c >> 12) & 7]}${MARKS[(c >> 9) & 7]}${MARKS[(c >> 6) & 7]}${MARKS[(c >> 3) & 7]}${MARKS[c & 7]}`;
    } else out += MARKS[i >> 3]! + MARKS[i & 7]!;
  }
  return out;
}

export function indexDoc(values: Readonly<Record<string, unknown>>): IndexDoc {
  let tdoc = '';
  const text: string[] = [];
  const sortable: IndexDoc['sortable'] = [];
  for (const name of Object.keys(values).sort()) {
    const v = values[name];
    if (typeof v === 'string') {
      tdoc += `${SEGMENT}${nameCode(name)}${VALUE}${fold(v)}`;
      text.push(v);
      sortable.push({ name, t: v, n: null });
    } else if (typeof v === 'number') {
      sortable.push({ name, t: null, n: v });
    } else if (typeof v === 'boolean') {
      sortable.push({ name, t: null, n: v ? 1 : 0 });
    } else if (Array.isArray(v)) {
      for (const a of v) {
        if (typeof a !== 'string') continue;
        tdoc += `${SEGMENT}${nameCode(name)}${VALUE}${fold(a)}`;
        text.push(a);
      }
    }
  }
  return { tdoc: tdoc ? `${tdoc}${SEGMENT}` : '', text: text.join(' \n '), sortable };
}

/** C0 control characters other than tab, newline and carriage return: refused in text values. */
export const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f]/;
