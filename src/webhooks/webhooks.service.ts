import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { webhookDecider, type WebhookCommand, type WebhookInput } from '../../aggregates/webhook/webhook.decider.js';
import { webhookStream } from '../../aggregates/webhook/webhook.events.js';
import { listWebhooks, saveWebhookSecret, webhookByUuid, type WebhookRow } from '../../read-models/webhooks.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { checkWebhookAgainstSchema } from './delivery-rules.js';
import { UrlRefused, type UrlGuard } from '../outbound/index.js';

/** Whose webhooks: a company's own (appUuid null) or those of an app installed in it. */
export interface WebhookOwner {
  tenant: string;
  appUuid: string | null;
}

/** Create, read, list, update and delete webhooks of one owner. Another company's webhook is the same 404 as a missing one. */
export function makeWebhooksService(deps: { db: Db; store: EventStore; guard: UrlGuard }) {
  const { db, store, guard } = deps;

  /** The schema checks of the webhook as it will be (the input over what it is). */
  async function checkSchema(tenant: string, input: WebhookInput, base: WebhookRow | null) {
    await checkWebhookAgainstSchema(db, tenant, {
      topic: (input.topic ?? base?.topic ?? '').trim(),
      filter: input.filter !== undefined ? input.filter : (base?.filter ?? null),
      includeRelations: input.includeRelations ?? base?.include_relations ?? [],
      relationFilters: input.relationFilters ?? base?.relation_filters ?? {},
    });
  }

  async function found(owner: WebhookOwner, webhookUuid: string): Promise<WebhookRow> {
    const row = await webhookByUuid(db, owner.tenant, webhookUuid, owner.appUuid);
    if (!row) throw notFound('Webhook', webhookUuid);
    return row;
  }

  async function checkUrl(url: string | undefined) {
    if (url === undefined) return;
    try {
      await guard.check(url.trim());
    } catch (err) {
      if (err instanceof UrlRefused) throw invalid('body.url', `body.url: refused: ${err.reason}`, 'Use a public http(s) URL; internal addresses are only reachable when listed in WEBHOOK_ALLOWED_HOSTS', 'INVALID_VALUE');
      throw err;
    }
  }

  function run(context: CommandContext, owner: WebhookOwner, webhookUuid: string, command: WebhookCommand, secret?: string) {
    return handleCommand({
      store,
      decider: webhookDecider,
      streamId: webhookStream(webhookUuid),
      command,
      context,
      // The secret stays out of the log: it is kept beside it, in the append's transaction.
      inTransaction: secret === undefined ? undefined : (tx) => saveWebhookSecret(tx, owner.tenant, webhookUuid, secret, context.now),
    });
  }

  return {
    found,

    async create(context: CommandContext, owner: WebhookOwner, input: WebhookInput): Promise<WebhookRow> {
      await checkUrl(input.url);
      await checkSchema(owner.tenant, input, null);
      const webhookUuid = randomUUID();
      await run(context, owner, webhookUuid, { type: 'CreateWebhook', webhookUuid, appUuid: owner.appUuid, input }, input.secret);
      return found(owner, webhookUuid);
    },

    list(owner: WebhookOwner, o: { topicContains?: string; query?: string; limit: number; offset: number }) {
      return listWebhooks(db, owner.tenant, { ...o, appUuid: owner.appUuid });
    },

    async update(context: CommandContext, owner: WebhookOwner, webhookUuid: string, input: WebhookInput): Promise<WebhookRow> {
      const base = await found(owner, webhookUuid);
      await checkUrl(input.url);
      await checkSchema(owner.tenant, input, base);
      await run(context, owner, webhookUuid, { type: 'UpdateWebhook', input }, input.secret);
      return found(owner, webhookUuid);
    },

    async remove(context: CommandContext, owner: WebhookOwner, webhookUuid: string) {
      await found(owner, webhookUuid);
      await run(context, owner, webhookUuid, { type: 'DeleteWebhook' });
    },
  };
}
export type WebhooksService = ReturnType<typeof makeWebhooksService>;
