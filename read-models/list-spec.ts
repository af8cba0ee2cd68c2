import { invalid } from '../aggregates/kernel/errors.js';
import { isUuid } from '../aggregates/kernel/uuid.js';

/** The part of spec 2.1's pagination request a list query uses. */
export interface ListRequest {
  filters: { key: string; operator: string; value?: unknown }[];
  sort: { key: string; direction: string }[];
  limit: number;
  page: number;
  query?: string;
}

export type ColumnType = 'text' | 'number' | 'boolean' | 'uuid';
/** API field name -> SQL column and its type. */
export type ListColumns = Record<string, { column: string; type: ColumnType }>;

const operators = ['equals', 'notEquals', 'contains', 'isnull', 'isnotnull', 'in', 'gt', 'gte', 'lt', 'lte'] as const;
const aliases: Record<string, (typeof operators)[number]> = {
  equals: 'equals', eq: 'equals', is: 'equals', '=': 'equals',
  notequals: 'notEquals', ne: 'notEquals', '!=': 'notEquals',
  contains: 'contains', like: 'contains',
  isnull: 'isnull', null: 'isnull',
  isnotnull: 'isnotnull', notnull: 'isnotnull',
  in: 'in', gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte',
};
const comparison = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

const fits = (type: ColumnType, v: unknown) =>
  type === 'number' ? typeof v === 'number' && Number.isFinite(v) : type === 'boolean' ? typeof v === 'boolean' : type === 'uuid' ? isUuid(v) : typeof v === 'string';

/** A text matched literally by LIKE / ILIKE (its `\\`, `%` and `_` escaped): the one LIKE escape of the read models. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `%text%`, escaped: a LIKE pattern for "contains". */
export const likeContains = (text: string) => `%${escapeLike(text)}%`;

export interface ListClauses {
  /** SQL conditions to AND with the caller's own (tenant first). */
  where: string[];
  params: unknown[];
  orderBy: string;
}

/**
 * Turns filters, free-text query and sort of a list request into SQL over `columns`, numbering
 * parameters after the caller's `params`. Soft-deleted rows are left out unless a filter names
 * `deletedAt`. Unknown keys or operators are a 400 that lists what is allowed.
 */
export function listClauses(request: ListRequest, columns: ListColumns, opts: { params: unknown[]; search: string[]; order: string }): ListClauses {
  const params = [...opts.params];
  const where: string[] = [];
  const arg = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const keys = Object.keys(columns).join(', ');
  for (const [i, f] of request.filters.entries()) {
    const field = `body.filters.${i}`;
    const col = columns[f.key];
    if (!col) throw invalid(`${field}.key`, `cannot filter on "${f.key}"`, `Filter on one of: ${keys}`, 'INVALID_VALUE');
    const op = aliases[f.operator.toLowerCase()];
    if (!op) throw invalid(`${field}.operator`, `unknown operator "${f.operator}"`, `Use one of: ${operators.join(', ')}`, 'INVALID_VALUE');
    if (op === 'isnull' || op === 'isnotnull') {
      where.push(`${col.column} is ${op === 'isnull' ? '' : 'not '}null`);
      continue;
    }
    const values = op === 'in' ? f.value : [f.value];
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => fits(col.type, v))) {
      throw invalid(`${field}.value`, `operator ${op} on ${f.key} needs ${op === 'in' ? 'a non-empty array of ' : 'a '}${col.type} value`, `Send value as ${op === 'in' ? `an array of ${col.type}` : col.type}`, 'INVALID_VALUE');
    }
    if (op === 'contains') {
      if (col.type !== 'text') throw invalid(`${field}.operator`, `contains works on text fields, not ${f.key}`, 'Use equals', 'INVALID_VALUE');
      where.push(`${col.column} ilike ${arg(likeContains(String(f.value)))}`);
    } else if (op === 'in') where.push(`${col.column} = any(${arg(values)})`);
    else if (op === 'equals') where.push(`${col.column} = ${arg(f.value)}`);
    else if (op === 'notEquals') where.push(`${col.column} is distinct from ${arg(f.value)}`);
    else where.push(`${col.column} ${comparison[op]} ${arg(f.value)}`);
  }
  if (!request.filters.some((f) => f.key === 'deletedAt') && columns.deletedAt) where.push(`${columns.deletedAt.column} is null`);
  const query = request.query?.trim();
  if (query && opts.search.length > 0) {
    const p = arg(likeContains(query));
    where.push(`(${opts.search.map((c) => `${c} ilike ${p}`).join(' or ')})`);
  }
  const order = request.sort.map((s, i) => {
    const col = columns[s.key];
    if (!col) throw invalid(`body.sort.${i}.key`, `cannot sort on "${s.key}"`, `Sort on one of: ${keys}`, 'INVALID_VALUE');
    return `${col.column} ${s.direction.toLowerCase() === 'desc' ? 'desc' : 'asc'}`;
  });
  return { where, params, orderBy: [...order, opts.order].join(', ') };
}
