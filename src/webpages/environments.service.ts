import { randomUUID } from 'node:crypto';
import { environmentDecider, type EnvironmentCommand, type EnvironmentInput } from '../../aggregates/environment/environment.decider.js';
import { environmentsStream } from '../../aggregates/environment/environment.events.js';
import { notFound } from '../../aggregates/kernel/errors.js';
import { environmentByKey, environmentsOf, type EnvironmentRow } from '../../read-models/cms-environments.queries.js';
import { pageCountIn } from '../../read-models/pages.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';

/**
 * CMS environments (spec 2.6, 4.2): one stream per company (`cms-environments`), rows by key.
 * Writes take the command context first, reads the tenant first; another company's environment
 * is the same 404 as a missing one.
 */
export function makeEnvironmentsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  const run = (context: CommandContext, command: EnvironmentCommand) => handleCommand({ store, decider: environmentDecider, streamId: environmentsStream, command, context });

  async function found(tenant: string, key: string): Promise<EnvironmentRow> {
    const row = await environmentByKey(db, tenant, key);
    if (!row) throw notFound('Environment', key);
    return row;
  }

  return {
    found,
    list: (tenant: string) => environmentsOf(db, tenant),

    async create(context: CommandContext, input: EnvironmentInput & { key: string }): Promise<EnvironmentRow> {
      const { key, ...rest } = input;
      await run(context, { type: 'CreateEnvironment', envUuid: randomUUID(), key, input: rest });
      return found(context.tenant, key);
    },

    async update(context: CommandContext, key: string, input: EnvironmentInput): Promise<EnvironmentRow> {
      await found(context.tenant, key);
      await run(context, { type: 'UpdateEnvironment', key, input });
      return found(context.tenant, key);
    },

    /** Refused (409) while the environment holds pages: the decider is told how many. */
    async remove(context: CommandContext, key: string) {
      await found(context.tenant, key);
      await run(context, { type: 'DeleteEnvironment', key, pageCount: await pageCountIn(db, context.tenant, key) });
    },
  };
}
export type EnvironmentsService = ReturnType<typeof makeEnvironmentsService>;
