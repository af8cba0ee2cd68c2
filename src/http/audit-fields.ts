import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isUuid } from '../../aggregates/kernel/uuid.js';
import { roles } from '../../aggregates/membership/roles.js';
import type { Sql } from '../../ports/sql.js';
import type { AuditRow } from '../../read-models/audit-row.js';
import { auditUsers, type AuditUserRow } from '../../read-models/users.queries.js';
import { shortLived } from '../cache/short-lived.js';

/**
 * The one shape of `createdBy`, `updatedBy` and `deletedBy` on every resource (spec 2.2, 2.9):
 * the record-like object (2.3) of the acting user, with its user object (2.4). Built here only,
 * from one query (read-models/users.queries.ts `auditUsers`), and kept per company and user.
 * docs/auth.md ("Who did it") says what each field holds.
 */

/** Who a user is, as every user object of spec 2.4 starts (the caller's own, an actor's). */
export const userIdentityFields = { uuid: z.string(), email: z.string(), firstname: z.string(), lastname: z.string(), initials: z.string() };

/** The user object (spec 2.4) of an actor, as one company sees them. Never a credential. */
export const auditUserSchema = z
  .object({
    ...userIdentityFields,
    scopes: z.array(z.string()).describe('Scopes held in this company (membership and teams); empty when not a member'),
    filters: z.record(z.string(), z.unknown()).describe('Per-user filter groups: none are kept yet, always {}'),
    role: z.enum(roles).nullable().describe('Role in this company; null when the user is not (or no longer) a member'),
    record: z.null().describe('Not repeated: this user object sits inside a record-like object already'),
  })
  .meta({ id: 'AuditUser' });
export type AuditUser = z.infer<typeof auditUserSchema>;

const actorPropertySchema = z.object({ icon: z.string(), name: z.string(), value: z.unknown(), type: z.string(), label: z.string() });

/** The record-like object (spec 2.3) of a user who acted. */
export const actorRecordSchema = z
  .object({
    uuid: z.string().describe("The user's uuid"),
    name: z.string().describe('First and last name'),
    label: z.string().describe('The name, or the e-mail when the user has no name'),
    createdAt: z.number().int().describe('When the user registered'),
    updatedAt: z.number().int().describe("When the user's profile last changed"),
    deletedAt: z.number().int().nullable().describe('Users are never deleted: null'),
    createdByUuid: z.string().nullable().describe('Not kept for users: null'),
    updatedByUuid: z.string().nullable().describe('Not kept for users: null'),
    deletedByUuid: z.string().nullable().describe('Not kept for users: null'),
    index: z.number().int().describe("The revision of the user's profile"),
    deleted: z.boolean(),
    complete: z.boolean().describe('false when the user is unknown to the platform (only the uuid is shown)'),
    properties: z.array(actorPropertySchema).describe('email, firstname, lastname'),
    objects: z.record(z.string(), z.unknown()),
    user: auditUserSchema,
  })
  .meta({ id: 'Actor', description: 'Who did it (createdBy, updatedBy, deletedBy): the record-like object (spec 2.3) of the user, with their user object (2.4)' });
export type ActorRecord = z.infer<typeof actorRecordSchema>;

/** createdBy / updatedBy / deletedBy: the actor, or null when nobody did it (e.g. never deleted). */
export const actorRefSchema = actorRecordSchema.nullable();

const initialsOf = (first: string, last: string) => `${first.trim().charAt(0)}${last.trim().charAt(0)}`.toUpperCase();

/** Freezes an actor and everything in it: its JSON text can then be kept with it (src/records/record-json.ts). */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/** The actor of a user row: frozen, as it is shared by every response that shows it. */
const actorOf = (row: AuditUserRow): ActorRecord => frozen(actorFields(row));

function actorFields(row: AuditUserRow): ActorRecord {
  const name = `${row.firstname} ${row.lastname}`.trim();
  const member = row.role !== null && row.active === true;
  const prop = (icon: string, key: string, value: string, label: string) => ({ icon, name: key, value, type: 'string', label });
  return {
    uuid: row.user_uuid,
    name,
    label: name || row.email,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    deletedAt: null,
    createdByUuid: null,
    updatedByUuid: null,
    deletedByUuid: null,
    index: row.revision,
    deleted: false,
    complete: true,
    properties: [prop('mail', 'email', row.email, 'E-mail'), prop('user', 'firstname', row.firstname, 'First name'), prop('user', 'lastname', row.lastname, 'Last name')],
    objects: {},
    user: {
      uuid: row.user_uuid,
      email: row.email,
      firstname: row.firstname,
      lastname: row.lastname,
      initials: initialsOf(row.firstname, row.lastname),
      scopes: member ? [...new Set([...(row.scopes ?? []), ...row.team_scopes])].sort() : [],
      filters: {},
      role: member ? row.role : null,
      record: null,
    },
  };
}

/** An actor the platform does not know (a user row that never came): only the uuid is true. */
const unknownActor = (uuid: string): ActorRecord =>
  frozen({
    ...actorFields({ user_uuid: uuid, email: '', firstname: '', lastname: '', created_at: 0, updated_at: 0, revision: 0, role: null, active: null, scopes: null, team_scopes: [] }),
    complete: false,
  });

/**
 * Actors by company and user. Kept a minute at most; this process forgets them all when it appends
 * to a user, membership or team stream (src/app.ts), so a profile or role change shows at once
 * here and within the minute in other processes.
 */
const cache = shortLived<ActorRecord>({ ttlMs: 60_000, maxEntries: 20_000 });

/** Forgets every kept actor (a user, membership or team changed). */
export const forgetAuditActors = () => cache.forget();

/** The actors a response needs, looked up once. */
export interface Actors {
  /** The record-like object of `uuid` (null for null). */
  actor(uuid: string | null | undefined): ActorRecord | null;
  /** The user object of `uuid` while they are a member of the company, else null (spec 2.2 `user`). */
  member(uuid: string | null | undefined): AuditUser | null;
}

/** The actors named by `uuids` in the company `tenant`: one query for those not kept. */
export async function auditActors(sql: Sql, tenant: string, uuids: Iterable<string | null | undefined>, now = Date.now()): Promise<Actors> {
  const found = new Map<string, ActorRecord>();
  const missing: string[] = [];
  for (const uuid of new Set(uuids)) {
    if (!uuid || found.has(uuid)) continue;
    const hit = cache.get(tenant, uuid, now);
    if (hit) found.set(uuid, hit);
    else if (isUuid(uuid)) missing.push(uuid);
    else found.set(uuid, unknownActor(uuid));
  }
  if (missing.length > 0) {
    const rows = await auditUsers(sql, isUuid(tenant) ? tenant : null, missing);
    for (const row of rows) {
      const actor = actorOf(row);
      found.set(row.user_uuid, actor);
      cache.set(tenant, row.user_uuid, actor, now);
    }
    for (const uuid of missing) if (!found.has(uuid)) found.set(uuid, unknownActor(uuid));
  }
  const actor = (uuid: string | null | undefined) => (uuid ? (found.get(uuid) ?? unknownActor(uuid)) : null);
  return {
    actor,
    member(uuid) {
      const user = actor(uuid)?.user;
      return user && user.role !== null ? user : null;
    },
  };
}

/** The actor columns of a read-model row (each one optional: not every resource keeps all three). */
export type ActorColumns = Partial<Pick<AuditRow, 'created_by' | 'updated_by' | 'deleted_by'>>;

export const actorUuidsOf = (rows: readonly ActorColumns[]) => rows.flatMap((r) => [r.created_by, r.updated_by, r.deleted_by]);

/** The bookkeeping fields every resource of spec 2.9 shape carries. */
export const auditFields = {
  index: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  deletedAt: z.number().int().nullable(),
  createdBy: actorRefSchema,
  updatedBy: actorRefSchema,
  deletedBy: actorRefSchema,
  revision: z.number().int(),
};
type AuditFields = typeof auditFields;

/** The audit fields but those a resource does not keep (no `index`; no `deletedAt` when it is never deleted). */
export function auditFieldsWithout<K extends keyof AuditFields>(...left: K[]): Omit<AuditFields, K> {
  return Object.fromEntries(Object.entries(auditFields).filter(([name]) => !(left as string[]).includes(name))) as Omit<AuditFields, K>;
}

/** The three actor fields of a row, as the API shows them. */
export const actorFieldsOf = (row: ActorColumns, actors: Actors) => ({
  createdBy: actors.actor(row.created_by),
  updatedBy: actors.actor(row.updated_by),
  deletedBy: actors.actor(row.deleted_by),
});

/** The audit fields of a read-model row, as the API shows them. */
export const auditFieldsOf = (row: AuditRow, actors: Actors) => ({
  index: row.idx,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  ...actorFieldsOf(row, actors),
  revision: row.revision,
});

/** The audit fields of a row that keeps no `index` (the schema's objects, properties, relations), with `deleted`. */
export const deletableAuditOf = (row: Omit<AuditRow, 'idx'>, actors: Actors) => ({
  deleted: row.deleted_at !== null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  ...actorFieldsOf(row, actors),
  revision: row.revision,
});

/** Renders rows whose responses carry audit fields: the actors of all of them are looked up once. */
export interface AuditRenderer {
  one<R extends ActorColumns, T>(tenant: string, row: R, render: (row: R, actors: Actors) => T): Promise<T>;
  all<R extends ActorColumns, T>(tenant: string, rows: readonly R[], render: (row: R, actors: Actors) => T): Promise<T[]>;
}

declare module 'fastify' {
  interface FastifyInstance {
    audit: AuditRenderer;
  }
}

export function auditRenderer(sql: Sql): AuditRenderer {
  return {
    async one(tenant, row, render) {
      return render(row, await auditActors(sql, tenant, actorUuidsOf([row])));
    },
    async all(tenant, rows, render) {
      const actors = await auditActors(sql, tenant, actorUuidsOf(rows));
      return rows.map((r) => render(r, actors));
    },
  };
}

/** `app.audit`, for every route that answers with audit fields. */
export const registerAuditFields = (app: FastifyInstance, sql: Sql) => app.decorate('audit', auditRenderer(sql));
