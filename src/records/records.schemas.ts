import { z } from 'zod';
import { reservedObjectNames } from '../../aggregates/object/names.js';
import { invalid } from '../../aggregates/kernel/errors.js';
import { canonicalDateTime } from '../../aggregates/record-filter/values.js';
import { formatSchema, parseSchema } from './record-view.js';

/**
 * The path segment of object-scoped routes: a lowercase identifier that is not a route group, so
 * `/api/v2/{objectName}/...` never shadows another group (Fastify also prefers static segments).
 */
export const objectNameParam = `:objectName(^(?!(?:${reservedObjectNames.map((n) => n.replace(/[.\-]/g, '\\$&')).join('|')})$)[a-z][a-z0-9_]{0,62}$)`;

const legacyProperty = z
  .object({ name: z.string().min(1).max(200), value: z.unknown(), type: z.string().max(40).optional(), label: z.string().max(200).optional(), icon: z.string().max(200).optional() })
  .strict();

/** Properties as a name-to-value map, or the LEGACY array of {name, type, value}. */
export const propertiesInputSchema = z
  .union([z.record(z.string().max(200), z.unknown()), z.array(legacyProperty).max(500)])
  .describe('A map of property name to value, or (LEGACY) an array of {name, type, value}');

/** A LEGACY array as a map; a name given twice is a 400. */
export function propertiesMap(input: z.infer<typeof propertiesInputSchema> | undefined): Record<string, unknown> {
  if (input === undefined) return {};
  if (!Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [i, p] of input.entries()) {
    if (Object.hasOwn(out, p.name)) throw invalid(`body.properties.${i}.name`, `property ${p.name} appears twice`, 'Send each property once');
    out[p.name] = p.value;
  }
  return out;
}

const readOnly = z.unknown().optional().describe('Read-only: accepted (a client may send back what it read) and ignored');

/** The body of a create or update: a record of spec 2.2. */
export const recordBodySchema = z
  .object({
    uuid: z.uuid().optional().describe('On create: the new record\'s uuid (default: a new one). Ignored on update.'),
    properties: propertiesInputSchema.optional(),
    extends: z.array(z.string().min(1).max(63)).max(20).optional().describe('On create: further objects (by name) the record is also a record of'),
    expectedRevision: z.number().int().min(-1).optional().describe('On update: fail with 409 unless the record is at this revision (like If-Match)'),
    name: readOnly,
    label: readOnly,
    object: readOnly,
    objects: readOnly,
    createdAt: readOnly,
    updatedAt: readOnly,
    deletedAt: readOnly,
    createdBy: readOnly,
    updatedBy: readOnly,
    deletedBy: readOnly,
    index: readOnly,
    revision: readOnly,
    relations: readOnly,
    teams: readOnly,
    user: readOnly,
  })
  .strict()
  .meta({ id: 'RecordBody' });

const boolString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const readQuerySchema = z
  .object({
    object: z.string().max(63).optional().describe('Read the record as a record of this object (default: its primary object)'),
    recordReturnFormat: formatSchema,
    parse: parseSchema,
    fields: z.string().max(4000).optional().describe('Comma-separated property names to return'),
    asOf: z.string().max(40).optional().describe('A revision number, or an ISO 8601 time: the record as it was then'),
  })
  .strict();

export const writeQuerySchema = z
  .object({
    object: z.string().max(63).optional(),
    recordReturnFormat: formatSchema,
    parse: parseSchema,
    ignoreErrors: boolString.optional().describe('true: skip non-critical validation errors (required, limits, formats, options, unknown properties)'),
  })
  .strict();

export const deleteQuerySchema = z
  .object({ mode: z.enum(['archive', 'delete']).default('archive').describe('archive (default) or delete: both soft-delete; the record can be restored') })
  .strict();

export const uuidParams = z.object({ uuid: z.uuid() });
// What the router's pattern above lets through, as the document says it.
const objectName = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/).max(63);
export const objectParams = z.object({ objectName });
export const objectUuidParams = z.object({ objectName, uuid: z.uuid() });

export type AsOf = { revision: number } | { time: number };

/** `asOf`: digits are a revision; anything else must be an ISO 8601 time with a zone. */
export function parseAsOf(raw: string): AsOf {
  if (/^\d{1,9}$/.test(raw)) return { revision: Number(raw) };
  const iso = canonicalDateTime(raw);
  if (!iso) throw invalid('querystring.asOf', `asOf "${raw}" is neither a revision nor a time`, 'Send a revision number (e.g. 3) or an ISO 8601 time with a zone (e.g. 2024-05-01T12:00:00Z)', 'INVALID_DATE');
  return { time: Date.parse(iso) };
}

/** `If-Match: "3"` (or W/"3", or 3) as a revision; `*` or absent: none. */
export function ifMatchRevision(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const m = /^\s*(?:W\/)?"?(-?\d{1,9})"?\s*$/.exec(header);
  if (!m) throw invalid('headers.if-match', `If-Match ${header} is not a revision`, 'Send the ETag of the record as read, e.g. If-Match: "3"');
  return Number(m[1]);
}

export const fieldsSet = (fields: string | undefined) => (fields ? new Set(fields.split(',').map((f) => f.trim()).filter(Boolean)) : undefined);
