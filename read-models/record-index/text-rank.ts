/**
 * Free text as PostgreSQL answers it, for the queries whose semantics are plain (ADR 0016): the
 * text forms of a `tsvector` and of a `tsquery` read back into lexemes and positions (PostgreSQL
 * parsed the words; nothing here splits text), and `ts_rank(vector, query)` with the default
 * weights and normalization 0, computed as PostgreSQL 15's tsrank.c does (calc_rank_or,
 * calc_rank_and) in float4: `f` (Math.fround) wherever C stores or computes a float, double where
 * C promotes (a double literal, sqrt, exp).
 */

/** A lexeme's positions as PostgreSQL keeps them: weight (D 0 .. A 3) << 14 | position. Empty: a lexeme with no positions. */
export type Positions = Uint16Array;

/** A vector's lexemes (unescaped) and their positions, in the vector's order. */
export type ParsedVector = Map<string, Positions>;

const f = Math.fround;

/** Where the lexeme quoted at `text[i]` ends (after its closing quote), its text in `out.lexeme`; -1 when none is quoted there. */
function quoted(text: string, i: number, out: { lexeme: string }): number {
  if (text.charCodeAt(i) !== 39) return -1;
  const close = text.indexOf("'", i + 1);
  if (close < 0) return -1;
  // Most lexemes hold no quote and no backslash: the text up to the next quote is the lexeme.
  let plain = text.charCodeAt(close + 1) !== 39;
  for (let j = i + 1; plain && j < close; j++) if (text.charCodeAt(j) === 92) plain = false;
  if (plain) {
    out.lexeme = text.slice(i + 1, close);
    return close + 1;
  }
  // `''` is a quote, `\x` the character x (as tsvectorout / tsqueryout write them).
  let lexeme = '';
  let start = i + 1;
  for (let j = start; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) {
      lexeme += text.slice(start, j) + (text[j + 1] ?? '');
      start = ++j + 1;
    } else if (c === 39) {
      if (text.charCodeAt(j + 1) === 39) {
        lexeme += text.slice(start, j) + "'";
        start = ++j + 1;
      } else {
        out.lexeme = lexeme + text.slice(start, j);
        return j + 1;
      }
    }
  }
  return -1;
}

/**
 * Reads the text form of a tsvector (`'a':1,3A 'b'`): `lexeme` with each lexeme (unescaped), then
 * `position` with each of its positions as PostgreSQL keeps them (none: the lexeme has none).
 */
export function readVector(text: string, lexeme: (l: string) => void, position: (p: number) => void) {
  const out = { lexeme: '' };
  let i = 0;
  while (i < text.length) {
    i = quoted(text, i, out);
    if (i < 0) throw new Error('not the text form of a tsvector');
    lexeme(out.lexeme);
    if (text.charCodeAt(i) === 58) {
      i++;
      for (;;) {
        let n = 0;
        let c = text.charCodeAt(i);
        while (c >= 48 && c <= 57) {
          n = n * 10 + c - 48;
          c = text.charCodeAt(++i);
        }
        const w = c === 65 ? 3 : c === 66 ? 2 : c === 67 ? 1 : c === 68 ? 0 : -1;
        if (w >= 0) i++;
        position((Math.max(w, 0) << 14) | n);
        if (text.charCodeAt(i) !== 44) break;
        i++;
      }
    }
    if (text.charCodeAt(i) === 32) i++;
  }
}

/** The text form of a tsvector as lexemes and positions. */
export function parseVector(text: string): ParsedVector {
  const out: ParsedVector = new Map();
  let last = '';
  let positions: number[] | null = null;
  const flush = () => positions && out.set(last, Uint16Array.from(positions));
  readVector(
    text,
    (l) => {
      flush();
      last = l;
      positions = [];
    },
    (p) => positions!.push(p),
  );
  flush();
  return out;
}

/** Byte order of the lexemes' UTF-8 (tsCompareString: memcmp, then the shorter first). */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The text form of a tsquery when it is one lexeme or an AND of lexemes (no phrase, OR, negation,
 * prefix or weight): its distinct lexemes in the order tsrank.c ranks them (SortAndUniqItems).
 * Null for any other shape (the SQL path answers it), and for an empty query.
 */
export function plainQuery(text: string): string[] | null {
  const lexemes: string[] = [];
  let i = 0;
  const out = { lexeme: '' };
  for (;;) {
    i = quoted(text, i, out);
    if (i < 0) return null;
    lexemes.push(out.lexeme);
    if (i === text.length) break;
    if (!text.startsWith(' & ', i)) return null;
    i += 3;
  }
  return [...new Set(lexemes)].sort(byBytes);
}

/** The default weights (D, C, B, A) as float4. */
const W = [0.1, 0.2, 0.4, 1.0].map(f);
const wpos = (p: number) => W[p >>> 14]!;
const MAXENTRYPOS = 1 << 14;
const posOf = (p: number) => p & (MAXENTRYPOS - 1);

function wordDistance(w: number): number {
  if (w > 100) return f(1e-30);
  return f(1.0 / (1.005 + 0.05 * Math.exp(w / 1.5 - 2)));
}

/** calc_rank_or: each lexeme's positions (null: not in the vector), over the query's distinct lexemes. */
function rankOr(items: readonly (Positions | null)[]): number {
  let res = 0;
  for (const found of items) {
    if (!found) continue;
    // A lexeme with no positions counts as one position of weight D.
    const post = found.length > 0 ? found : Uint16Array.of(0);
    let resj = 0;
    let wjm = -1;
    let jm = 0;
    for (let j = 0; j < post.length; j++) {
      resj = f(resj + f(wpos(post[j]!) / ((j + 1) * (j + 1))));
      if (wpos(post[j]!) > wjm) {
        wjm = wpos(post[j]!);
        jm = j;
      }
    }
    res = f(res + f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1)))) / 1.64493406685);
  }
  return items.length > 0 ? f(res / items.length) : res;
}

/** calc_rank_and: the lexemes' positions pairwise, by their distance. */
function rankAnd(items: readonly (Positions | null)[]): number {
  let res = -1;
  // A lexeme with no positions: one position at MAXENTRYPOS - 1, weight D.
  const nul = Uint16Array.of(MAXENTRYPOS - 1);
  const pos = items.map((p) => (p ? (p.length > 0 ? p : nul) : null));
  for (let i = 0; i < pos.length; i++) {
    const post = pos[i];
    if (!post) continue;
    for (let k = 0; k < i; k++) {
      const ct = pos[k];
      if (!ct) continue;
      for (let l = 0; l < post.length; l++) {
        for (let p = 0; p < ct.length; p++) {
          let dist = Math.abs(posOf(post[l]!) - posOf(ct[p]!));
          if (dist || post === nul || ct === nul) {
            if (!dist) dist = MAXENTRYPOS;
            const curw = f(Math.sqrt(f(f(wpos(post[l]!) * wpos(ct[p]!)) * wordDistance(dist))));
            res = res < 0 ? curw : f(1.0 - (1.0 - res) * (1.0 - curw));
          }
        }
      }
    }
  }
  return res;
}

/**
 * `ts_rank(vector, query)` (weights {0.1, 0.2, 0.4, 1.0}, normalization 0) of a vector holding
 * the query: `items` are the positions of the query's distinct lexemes in `plainQuery`'s order.
 */
export function tsRank(items: readonly (Positions | null)[]): number {
  const res = items.length < 2 ? rankOr(items) : rankAnd(items);
  return res < 0 ? f(1e-20) : res;
}
