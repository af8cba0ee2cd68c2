import type { CompiledIndexRequest, Condition, FieldType, Scalar } from '../../aggregates/record-filter/filter.compile.js';
import { complementOf } from '../../aggregates/record-filter/filter.schema.js';
import { columnKey, foldedColumn, type ObjectColumns } from './object-columns.js';
import { compareText, fold, isPlainObject } from '../../aggregates/record-filter/values.js';

/**
 * A filter's conditions as tests of an object's rows (object-columns.ts), per column, so that a
 * row costs no allocation: what the column scan (column-scan.ts) and the bitset scan
 * (bits-scan.ts) read the rows they cannot take from a kept set with. The same semantics as
 * `evaluateIndex` (filter.evaluate.ts); the column-scan property test holds the two equal.
 */

export const numeric = (t: FieldType) => t === 'number' || t === 'timestamp';

/** Whether one atom (a scalar of a value) has the field's type: as `typed` in filter.evaluate.ts. */
export function typedTest(type: FieldType): (a: unknown) => boolean {
  if (numeric(type)) return (a) => typeof a === 'number';
  if (type === 'boolean') return (a) => typeof a === 'boolean';
  if (type === 'json') return () => false;
  return (a) => typeof a === 'string';
}

function compareTo(type: FieldType, v: Scalar): (a: Scalar) => number {
  if (typeof v === 'number') return (a) => (typeof a === 'number' ? a - v : compareText(String(a), String(v)));
  if (typeof v === 'boolean') return (a) => (typeof a === 'boolean' ? Number(a) - Number(v) : compareText(String(a), String(v)));
  const text = String(v);
  return (a) => compareText(String(a), text);
}

/** The test of one atom of a valued operator (its type checked). */
function atomTest(c: Condition): (a: unknown) => boolean {
  const { type } = c.field;
  const typed = typedTest(type);
  const v = c.value as Scalar;
  const same = type === 'uuid' ? (a: unknown) => String(a).toLowerCase() : (a: unknown) => a;
  switch (c.op) {
    case 'equals':
      return (a) => typed(a) && same(a) === v;
    case 'in': {
      const set = new Set(c.value as Scalar[]);
      return (a) => typed(a) && set.has(same(a) as Scalar);
    }
    case 'contains': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).includes(term);
    }
    case 'startsWith': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).startsWith(term);
    }
    case 'endsWith': {
      const term = fold(String(v));
      return (a) => typed(a) && fold(String(a)).endsWith(term);
    }
    case 'gt': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) > 0;
    }
    case 'gte': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) >= 0;
    }
    case 'lt': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) < 0;
    }
    case 'lte': {
      const cmp = compareTo(type, v);
      return (a) => typed(a) && cmp(a as Scalar) <= 0;
    }
    case 'between': {
      const [lo, hi] = c.value as [Scalar, Scalar];
      const low = compareTo(type, lo);
      const high = compareTo(type, hi);
      return (a) => typed(a) && low(a as Scalar) >= 0 && high(a as Scalar) <= 0;
    }
    default:
      return () => false;
  }
}

const scalar = (x: unknown) => x !== null && typeof x !== 'object';

function emptyJson(v: unknown) {
  return v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** A condition as a test of a raw value (a column's cell), as `holds` reads a record's atoms. */
export function valueTest(c: Condition): (v: unknown) => boolean {
  const positive = complementOf[c.op];
  if (positive) {
    const test = valueTest({ ...c, op: positive });
    return (v) => !test(v);
  }
  const { type } = c.field;
  const json = type === 'json';
  if (c.op === 'isnotnull') return (v) => v !== null && v !== undefined && (json || !Array.isArray(v) || v.some(scalar));
  if (c.op === 'isnotempty') {
    if (json) return (v) => v !== null && v !== undefined && !emptyJson(v);
    return (v) => (Array.isArray(v) ? v.some((x) => scalar(x) && x !== '') : v !== null && v !== undefined && v !== '');
  }
  const test = atomTest(c);
  if (json) return () => false;
  // A list's atoms are its scalars; `test` checks the type, which no null or object has.
  return (v) => (Array.isArray(v) ? v.some(test) : test(v));
}

export const stringOps: Partial<Record<Condition['op'], (text: string, term: string) => boolean>> = {
  contains: (text, term) => text.includes(term),
  startsWith: (text, term) => text.startsWith(term),
  endsWith: (text, term) => text.endsWith(term),
};

/** Whether a row is in the request's archive scope (live rows only). */
export function scopeTest(store: ObjectColumns, archived: CompiledIndexRequest['archived']): (row: number) => boolean {
  const { uuids } = store;
  const deleted = store.columns.get('@deletedAt')!;
  return (row) => {
    if (uuids[row] === null || uuids[row] === undefined) return false;
    const gone = deleted[row] !== null && deleted[row] !== undefined;
    return archived === 'include' || (archived === 'only') === gone;
  };
}


/** Whether a condition's row test reads its column's folded text (a text operator on a column of text). */
export const foldsText = (c: Condition) => Boolean(stringOps[complementOf[c.op] ?? c.op]) && c.field.type !== 'json' && !(c.field.system && c.field.name === 'uuid');

/** A condition as a test of a row. */
export function rowTest(store: ObjectColumns, c: Condition): (row: number) => boolean {
  const key = columnKey(c.field);
  const values = c.field.system && c.field.name === 'uuid' ? store.uuids : store.columns.get(key);
  if (!values) throw new Error(`column ${key} is not held`);
  const positive = complementOf[c.op] ?? c.op;
  const text = stringOps[positive];
  if (text && foldsText(c)) {
    // The folded text kept with the column; a value that is not one string takes the general test.
    const folded = foldedColumn(store, key);
    const term = fold(String(c.value));
    const general = valueTest({ ...c, op: positive });
    const holds = (row: number) => {
      const f = folded[row];
      return f !== undefined ? text(f, term) : general(values[row]);
    };
    return positive === c.op ? holds : (row) => !holds(row);
  }
  const test = valueTest(c);
  if (c.op === 'equals' && c.field.type !== 'uuid' && c.field.type !== 'json') {
    // A scalar of the value's type equals it exactly when it is it; a list is tested in full.
    const v = c.value;
    return (row) => {
      const x = values[row];
      return x === v || (typeof x === 'object' && x !== null && test(x));
    };
  }
  return (row: number) => test(values[row]);
}

/** Cheap conditions first (they leave fewer rows for the text ones). */
export const cost = (c: Condition) => (stringOps[complementOf[c.op] ?? c.op] ? 2 : c.op === 'equals' || c.op === 'in' ? 0 : 1);

/** Whether a condition can take its candidates from gram postings: a positive text operator on a text column, a term of 2+ code units. */
export function postingCondition(c: Condition): boolean {
  if (!stringOps[c.op] || c.field.type === 'json' || (c.field.system && c.field.name === 'uuid')) return false;
  return fold(String(c.value)).length >= 2;
}
