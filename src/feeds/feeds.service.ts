import { randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { feedDecider, type FeedCommand, type FeedFacts, type FeedInput } from '../../aggregates/feed/feed.decider.js';
import { feedStream } from '../../aggregates/feed/feed.events.js';
import { compileIndexRequest } from '../../aggregates/record-filter/filter.compile.js';
import { feedByUuid, listFeeds, liveFeedByTokenHash, type FeedRow } from '../../read-models/feeds.queries.js';
import { loadRecordObjects } from '../../read-models/records.queries.js';
import { loadObjectSchemaByUuid } from '../../read-models/schema.queries.js';
import { hashToken, newToken } from '../auth/tokens.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { catalogOf } from '../records/records.reads.js';
import { feedRequest } from './feed-records.js';

/**
 * Feeds of the selected company. Writes take the command context first, reads the tenant first.
 * Another company's feed is the same 404 as a missing one. The public token is made here, handed
 * back once (create, rotate) and only its SHA-256 goes into the command, the event and the row.
 */
export function makeFeedsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  /** The object and whether the filters and the sort compile against it (the decider reports both). */
  async function factsFor(tenant: string, input: FeedInput, base: FeedRow | null): Promise<FeedFacts> {
    const objectUuid = input.objectUuid ?? base?.object_uuid;
    const schema = objectUuid ? await loadObjectSchemaByUuid(db, tenant, objectUuid) : null;
    if (!schema) return { object: null, filterProblems: [] };
    const [object] = await loadRecordObjects(db, tenant, [schema.object.uuid]);
    const filterProblems: FeedFacts['filterProblems'][number][] = [];
    try {
      compileIndexRequest({ properties: catalogOf(object ? [object] : []) }, feedRequest(input.filters ?? base?.filters ?? [], input.sort ?? base?.sort ?? [], 0, 1));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      for (const d of err.details) filterProblems.push({ field: d.field ?? 'body.filters', message: d.message, correctionSuggestion: d.correctionSuggestion });
    }
    return { object: { uuid: schema.object.uuid, name: schema.object.name, properties: schema.properties.map((p) => p.name) }, filterProblems };
  }

  async function found(tenant: string, feedUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<FeedRow> {
    const row = await feedByUuid(db, tenant, feedUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('Feed', feedUuid);
    return row;
  }

  const run = (context: CommandContext, feedUuid: string, command: FeedCommand) =>
    handleCommand({ store, decider: feedDecider, streamId: feedStream(feedUuid), command, context });

  return {
    found: (tenant: string, feedUuid: string) => found(tenant, feedUuid),

    /** The live, enabled feed a public token names; null for a wrong, rotated-away or deleted token. */
    async byToken(token: string): Promise<FeedRow | null> {
      const row = await liveFeedByTokenHash(db, hashToken(token));
      return row && row.enabled ? row : null;
    },

    async create(context: CommandContext, input: FeedInput): Promise<{ row: FeedRow; token: string }> {
      const feedUuid = randomUUID();
      const token = newToken();
      await run(context, feedUuid, { type: 'CreateFeed', feedUuid, tokenHash: hashToken(token), input, facts: await factsFor(context.tenant, input, null) });
      return { row: await found(context.tenant, feedUuid), token };
    },

    list: (tenant: string, o: { deleted: boolean; query?: string; limit: number; offset: number }) => listFeeds(db, tenant, o),

    async update(context: CommandContext, feedUuid: string, input: FeedInput): Promise<FeedRow> {
      const base = await found(context.tenant, feedUuid);
      await run(context, feedUuid, { type: 'UpdateFeed', input, facts: await factsFor(context.tenant, input, base) });
      return found(context.tenant, feedUuid);
    },

    /** A new token; the old one answers 404 from the moment this returns (the row is written in the command's transaction). */
    async rotate(context: CommandContext, feedUuid: string): Promise<{ row: FeedRow; token: string }> {
      await found(context.tenant, feedUuid);
      const token = newToken();
      await run(context, feedUuid, { type: 'RotateFeedToken', tokenHash: hashToken(token) });
      return { row: await found(context.tenant, feedUuid), token };
    },

    async remove(context: CommandContext, feedUuid: string) {
      await found(context.tenant, feedUuid);
      await run(context, feedUuid, { type: 'DeleteFeed' });
    },

    async restore(context: CommandContext, feedUuid: string): Promise<FeedRow> {
      await found(context.tenant, feedUuid, { deleted: 'either' });
      await run(context, feedUuid, { type: 'RestoreFeed' });
      return found(context.tenant, feedUuid);
    },
  };
}
export type FeedsService = ReturnType<typeof makeFeedsService>;
