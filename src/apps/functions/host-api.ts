import { DomainError } from '../../../aggregates/kernel/errors.js';
import type { FunctionScope } from '../../../aggregates/app-deploy/deploy.manifest.js';
import { recordIndexRequestSchema } from '../../../aggregates/record-filter/filter.schema.js';
import { secretsOf } from '../../../read-models/apps.queries.js';
import type { CommandContext } from '../../commands/command-handler.js';
import type { Db } from '../../db/db.js';
import { readAnswer, SendFailed, sendPinned, UrlRefused, type UrlGuard } from '../../outbound/index.js';
import type { RecordsService } from '../../records/records.service.js';
import type { RecordReads } from '../../records/records.reads.js';
import type { RuntimeService } from '../runtime.service.js';
import { secretAad } from '../runtime.service.js';
import type { SecretBox } from '../secret-box.js';

const MAX_FETCH_ANSWER = 256 * 1024;
const VIEW = { format: 'USER_FRIENDLY', parse: 'raw' } as const;

/** What the host API needs from the rest of the platform, handed over by the module. */
export interface HostDeps {
  db: Db;
  records: RecordsService;
  reads: RecordReads;
  runtime: RuntimeService;
  box: SecretBox;
  guard: UrlGuard;
  fetchTimeoutMs: number;
}

/** One invocation's place: the installing company, the app, what its deploy was granted, who asked. */
export interface HostScope {
  ctx: CommandContext;
  appUuid: string;
  scopes: readonly FunctionScope[];
  maxCalls: number;
}

const refused = (message: string) => new DomainError('FORBIDDEN', message);

interface LeanRow {
  uuid: string;
  object_name: string;
  vals: Record<string, unknown>;
  revision: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}
/** A record as a function sees it: its values as stored, no actors. */
const lean = (r: LeanRow) => ({ uuid: r.uuid, objectName: r.object_name, properties: r.vals, revision: Number(r.revision), createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), deletedAt: r.deleted_at === null ? null : Number(r.deleted_at) });

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 2000) throw new Error(`${what} must be a non-empty string`);
  return v;
};

/**
 * The host API of one invocation (docs/apps.md, "Host API"): every call acts in the installing
 * company only (the tenant of `scope.ctx`), writes go through the records service as commands
 * whose metadata names the app, and `fetch` goes through the address guard of src/outbound/.
 */
export function makeHostCall(deps: HostDeps, scope: HostScope) {
  const { ctx, appUuid } = scope;
  const tenant = ctx.tenant;
  let calls = 0;
  const need = (s: FunctionScope) => {
    if (!scope.scopes.includes(s)) throw refused(`the app's deploy does not declare the scope ${s}`);
  };

  const ops: Record<string, (a: Record<string, unknown>) => Promise<unknown>> = {
    async 'records.get'(a) {
      need('records:read');
      const found = await deps.reads.one(tenant, str(a.uuid, 'uuid'), undefined, VIEW);
      return lean(found.row);
    },
    async 'records.query'(a) {
      need('records:read');
      const object = await deps.records.objectNamed(tenant, str(a.objectName, 'objectName'));
      const request = recordIndexRequestSchema.safeParse(obj(a.request));
      if (!request.success) throw new Error(`the query is not a records index request: ${request.error.issues[0]?.message ?? ''}`);
      const page = await deps.reads.page(tenant, object, request.data, VIEW);
      return { total: page.total, page: page.page, perPage: page.perPage, data: page.rows.map(lean) };
    },
    async 'records.create'(a) {
      need('records:write');
      const done = await deps.records.create({ ...ctx, now: Date.now() }, str(a.objectName, 'objectName'), { uuid: typeof a.uuid === 'string' ? a.uuid : undefined, properties: obj(a.properties) });
      return { uuid: done.uuid, revision: done.revision };
    },
    async 'records.update'(a) {
      need('records:write');
      const done = await deps.records.update({ ...ctx, now: Date.now() }, str(a.uuid, 'uuid'), obj(a.properties));
      return { uuid: done.uuid, revision: done.revision, changed: done.changed };
    },
    async 'state.get'(a) {
      const state = await deps.runtime.state(tenant, appUuid);
      return a.key === undefined || a.key === null ? state : (state[str(a.key, 'key')] ?? null);
    },
    async 'state.set'(a) {
      return deps.runtime.changeState({ ...ctx, now: Date.now() }, appUuid, obj(a.values));
    },
    async 'secrets.get'(a) {
      const name = str(a.name, 'name');
      const found = (await secretsOf(deps.db, tenant, appUuid)).find((s) => s.name === name);
      return found ? deps.box.open(found.ciphertext, secretAad(tenant, appUuid, name)) : null;
    },
    // The guest's fetch: through the address guard and the pinned sender only.
    async 'http.request'(a) {
      need('fetch');
      const method = a.method === undefined || a.method === null ? 'GET' : a.method;
      if (method !== 'GET' && method !== 'POST') throw new Error('fetch supports GET and POST');
      const headers = Object.fromEntries(Object.entries(obj(a.headers)).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
      const body = typeof a.body === 'string' ? a.body : undefined;
      let target;
      try {
        target = await deps.guard.resolve(str(a.url, 'url'));
      } catch (err) {
        if (err instanceof UrlRefused) throw new Error(`fetch refused: ${err.reason}`);
        throw err;
      }
      try {
        return await sendPinned(target, { method, headers: { 'user-agent': 'platform-apps/2', ...headers }, body }, { timeoutMs: deps.fetchTimeoutMs }, async (answer) => {
          const text = await readAnswer(answer, MAX_FETCH_ANSWER);
          if (text === null) throw new Error(`fetch: the answer passed ${MAX_FETCH_ANSWER} bytes`);
          const h = Object.fromEntries(Object.entries(answer.headers).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
          return { status: answer.statusCode, headers: h, body: text.toString('utf8') };
        });
      } catch (err) {
        if (err instanceof SendFailed) throw new Error(`fetch failed: ${err.message}`);
        throw err;
      }
    },
  };

  return async (op: string, args: unknown): Promise<unknown> => {
    if (++calls > scope.maxCalls) throw new Error(`more than ${scope.maxCalls} host calls in one invocation`);
    const fn = ops[op];
    if (!fn) throw new Error(`no host operation ${op}`);
    return fn(obj(args));
  };
}
