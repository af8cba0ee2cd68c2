import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { compileFilter, compileIndexRequest, type CompiledFilter } from '../../aggregates/record-filter/filter.compile.js';
import { recordIndexRequestSchema, type FilterGroups, type FilterItem, type SortItem } from '../../aggregates/record-filter/filter.schema.js';
import { savedFilterDecider, type SavedFilterCommand } from '../../aggregates/saved-filter/saved-filter.decider.js';
import { savedFilterStream } from '../../aggregates/saved-filter/saved-filter.events.js';
import type { RecordObject } from '../../read-models/records.queries.js';
import { savedFilterOf, savedFiltersOf, type SavedFilterRow } from '../../read-models/saved-filters.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { catalogOf, relationCatalog } from './records.reads.js';
import type { RecordsService } from './records.service.js';

export interface SavedFilterInput {
  name?: string;
  objectName?: string;
  filters?: FilterItem[];
  groups?: FilterGroups['groups'];
  filter?: FilterGroups;
  sort?: SortItem[];
}

/** Saved filters (spec 1.13): validated against the object's properties when saved and when applied. */
export function makeSavedFilters(deps: { db: Db; store: EventStore; records: RecordsService }) {
  const { db, store, records } = deps;

  async function catalogFor(tenant: string, object: RecordObject) {
    const rel = await relationCatalog(db, tenant, object.objectUuid);
    return { catalog: { properties: catalogOf([object]), relations: rel.relations }, paths: rel.paths };
  }

  /** Checks filters, groups and sort against the object (one 400 listing every problem). */
  async function check(tenant: string, objectName: string, body: { filters: FilterItem[]; groups: FilterGroups['groups']; sort: SortItem[] }) {
    const object = await records.objectNamed(tenant, objectName);
    const { catalog } = await catalogFor(tenant, object);
    compileIndexRequest(catalog, recordIndexRequestSchema.parse({ filters: body.filters, groups: body.groups, sort: body.sort }));
  }

  async function live(tenant: string, filterUuid: string): Promise<SavedFilterRow> {
    const row = await savedFilterOf(db, tenant, filterUuid);
    if (!row || row.deleted_at !== null) throw notFound('Saved filter', filterUuid);
    return row;
  }

  const on = (ctx: CommandContext, filterUuid: string, command: SavedFilterCommand) =>
    handleCommand({ store, decider: savedFilterDecider, streamId: savedFilterStream(filterUuid), command, context: ctx });

  const groupsOf = (input: SavedFilterInput) => (input.groups || input.filter ? [...(input.groups ?? []), ...(input.filter?.groups ?? [])] : undefined);

  return {
    async create(ctx: CommandContext, input: SavedFilterInput): Promise<SavedFilterRow> {
      if (!input.name) throw invalid('body.name', 'name is required', 'Send a name for the filter');
      if (!input.objectName) throw invalid('body.objectName', 'objectName is required', 'Name the object the filter applies to');
      const body = { name: input.name, objectName: input.objectName, filters: input.filters ?? [], groups: groupsOf(input) ?? [], sort: input.sort ?? [] };
      await check(ctx.tenant, body.objectName, body);
      const filterUuid = randomUUID();
      await on(ctx, filterUuid, { type: 'CreateSavedFilter', filterUuid, body });
      return live(ctx.tenant, filterUuid);
    },

    async update(ctx: CommandContext, filterUuid: string, input: SavedFilterInput): Promise<SavedFilterRow> {
      const row = await live(ctx.tenant, filterUuid);
      const body = { name: input.name, objectName: input.objectName, filters: input.filters, groups: groupsOf(input), sort: input.sort };
      await check(ctx.tenant, body.objectName ?? row.object_name, { filters: body.filters ?? row.filters, groups: body.groups ?? row.groups, sort: body.sort ?? row.sort });
      await on(ctx, filterUuid, { type: 'UpdateSavedFilter', body });
      return live(ctx.tenant, filterUuid);
    },

    async remove(ctx: CommandContext, filterUuid: string) {
      if (!(await savedFilterOf(db, ctx.tenant, filterUuid))) throw notFound('Saved filter', filterUuid);
      await on(ctx, filterUuid, { type: 'DeleteSavedFilter' });
    },

    async restore(ctx: CommandContext, filterUuid: string): Promise<SavedFilterRow> {
      if (!(await savedFilterOf(db, ctx.tenant, filterUuid))) throw notFound('Saved filter', filterUuid);
      await on(ctx, filterUuid, { type: 'RestoreSavedFilter' });
      return live(ctx.tenant, filterUuid);
    },

    get: live,
    list: (tenant: string, opts: { objectName?: string; deleted: boolean; limit: number; offset: number }) => savedFiltersOf(db, tenant, opts),

    /** The saved filter as conditions for an index request on `object` (which must be the filter's object). */
    async compiledFor(tenant: string, filterUuid: string, object: RecordObject): Promise<CompiledFilter> {
      const row = await savedFilterOf(db, tenant, filterUuid);
      if (!row || row.deleted_at !== null) {
        throw invalid('body.savedFilter', `no saved filter ${filterUuid} in the selected company`, 'List saved filters with POST /api/v2/filters/index', 'NOT_FOUND');
      }
      if (row.object_name !== object.name) {
        throw invalid('body.savedFilter', `saved filter ${filterUuid} filters ${row.object_name}, not ${object.name}`, `Use it with POST /api/v2/${row.object_name}/index`);
      }
      const { catalog } = await catalogFor(tenant, object);
      return compileFilter(catalog, { filters: row.filters, groups: row.groups, at: { filters: 'savedFilter.filters', groups: 'savedFilter.groups' } });
    },
  };
}

export type SavedFilters = ReturnType<typeof makeSavedFilters>;
