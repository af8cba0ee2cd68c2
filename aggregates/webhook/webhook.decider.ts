import type { Decider } from '../kernel/decider.js';
import { DomainError, notFound } from '../kernel/errors.js';
import { problems, type Problems } from '../kernel/problems.js';
import type { WebhookEvent } from './webhook.events.js';
import {
  MAX_BACKOFF_MS,
  MAX_RETRIES,
  MIN_BACKOFF_MS,
  RELATION_LIMIT_DEFAULT,
  RELATION_LIMIT_MAX,
  RETRY_DEFAULTS,
  type WebhookFilter,
  type WebhookFormat,
  type WebhookSettings,
} from './webhook.schemas.js';
import { TOPIC_GRAMMAR, parseTopic } from './webhook.topics.js';

/** What a caller sends to create or change a webhook (spec 2.9). Absent fields keep their value (or default). */
export interface WebhookInput {
  url?: string;
  secret?: string;
  topic?: string;
  name?: string;
  label?: string;
  webhookFormat?: WebhookFormat;
  filter?: WebhookFilter | null;
  includeRelations?: string[];
  relationFilters?: Record<string, WebhookFilter>;
  relationLimit?: number;
  retryEnabled?: boolean;
  maxRetries?: number;
  retryBackoffMs?: number;
}

export type WebhookCommand =
  | { type: 'CreateWebhook'; webhookUuid: string; appUuid: string | null; input: WebhookInput }
  | { type: 'UpdateWebhook'; input: WebhookInput }
  | { type: 'DeleteWebhook' };

export interface WebhookState {
  exists: boolean;
  deleted: boolean;
  webhookUuid: string;
  appUuid: string | null;
  settings: WebhookSettings | null;
}

const MAX_URL = 2048;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function checkUrl(p: Problems, raw: string): string {
  const text = raw.trim();
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (!url || text.length > MAX_URL) {
    p.add('body.url', `"${raw}" is not an absolute URL`, `Send an absolute http(s) URL of at most ${MAX_URL} characters, e.g. https://example.com/hooks`, 'INVALID_VALUE');
  } else if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    p.add('body.url', `scheme ${url.protocol.replace(':', '')} is not allowed`, 'Use an http:// or https:// URL', 'INVALID_VALUE');
  } else if (url.username || url.password) {
    p.add('body.url', 'the URL carries credentials', 'Remove user:password@ from the URL; deliveries are signed with the secret instead', 'INVALID_VALUE');
  }
  return text;
}

function checkSecret(p: Problems, secret: string) {
  if (secret.length < 8 || secret.length > 512) {
    p.add('body.secret', 'secret must have 8 to 512 characters', 'Send a long random secret, e.g. whsec_ followed by base64 of 24 or more random bytes', 'INVALID_VALUE');
  } else if (secret.startsWith('whsec_') && !BASE64.test(secret.slice('whsec_'.length))) {
    p.add('body.secret', 'a secret starting with whsec_ must continue in base64', 'Send whsec_ followed by base64, or a secret without the whsec_ prefix', 'INVALID_VALUE');
  }
}

function checkRange(p: Problems, field: string, value: number, min: number, max: number) {
  if (!Number.isInteger(value) || value < min || value > max) p.add(`body.${field}`, `${field} must be an integer from ${min} to ${max}`, `Send ${field} between ${min} and ${max}`, 'INVALID_VALUE');
}

/** Merges `input` over `base` (or the defaults) and checks every field; all problems in one 400. */
function settingsFrom(input: WebhookInput, base: WebhookSettings | null): WebhookSettings {
  const p = problems();
  if (!base) {
    if (input.url === undefined) p.add('body.url', 'url is required', 'Send the URL that receives the deliveries');
    if (input.secret === undefined) p.add('body.secret', 'secret is required', 'Send a secret; deliveries are signed with it');
    if (input.topic === undefined) p.add('body.topic', 'topic is required', `Send a topic: ${TOPIC_GRAMMAR}`);
  }
  const url = input.url !== undefined ? checkUrl(p, input.url) : base?.url ?? '';
  if (input.secret !== undefined) checkSecret(p, input.secret);
  const topic = input.topic !== undefined ? input.topic.trim() : base?.topic ?? '';
  if (input.topic !== undefined && !parseTopic(topic)) {
    p.add('body.topic', `topic "${input.topic}" does not follow the topic grammar`, `Use one of: ${TOPIC_GRAMMAR}`, 'INVALID_VALUE');
  }
  const settings: WebhookSettings = {
    url,
    topic,
    name: (input.name ?? base?.name ?? topic).trim().slice(0, 200),
    label: (input.label ?? base?.label ?? topic).trim().slice(0, 200),
    webhookFormat: input.webhookFormat ?? base?.webhookFormat ?? 'structured',
    filter: input.filter !== undefined ? input.filter : base?.filter ?? null,
    includeRelations: input.includeRelations !== undefined ? [...new Set(input.includeRelations.map((r) => r.trim()))] : base?.includeRelations ?? [],
    relationFilters: input.relationFilters ?? base?.relationFilters ?? {},
    relationLimit: input.relationLimit ?? base?.relationLimit ?? RELATION_LIMIT_DEFAULT,
    retryEnabled: input.retryEnabled ?? base?.retryEnabled ?? RETRY_DEFAULTS.retryEnabled,
    maxRetries: input.maxRetries ?? base?.maxRetries ?? RETRY_DEFAULTS.maxRetries,
    retryBackoffMs: input.retryBackoffMs ?? base?.retryBackoffMs ?? RETRY_DEFAULTS.retryBackoffMs,
  };
  checkRange(p, 'relationLimit', settings.relationLimit, 0, RELATION_LIMIT_MAX);
  checkRange(p, 'maxRetries', settings.maxRetries, 0, MAX_RETRIES);
  checkRange(p, 'retryBackoffMs', settings.retryBackoffMs, MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  if (settings.includeRelations.some((r) => r.length === 0 || r.length > 200)) {
    p.add('body.includeRelations', 'relation names must have 1 to 200 characters', 'Send the names of relations (or related objects) to include');
  }
  for (const key of Object.keys(settings.relationFilters)) {
    if (!settings.includeRelations.includes(key)) {
      p.add(`body.relationFilters.${key}`, `relationFilters names ${key}, which includeRelations does not list`, `Add ${key} to includeRelations, or remove its filter`);
    }
  }
  p.throwIfAny('The webhook has several invalid fields');
  return settings;
}

function live(state: WebhookState) {
  if (!state.exists || state.deleted) throw notFound('Webhook', state.webhookUuid || 'requested');
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const webhookDecider: Decider<WebhookState, WebhookCommand, WebhookEvent> = {
  initialState: () => ({ exists: false, deleted: false, webhookUuid: '', appUuid: null, settings: null }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateWebhook': {
        if (state.exists) throw new DomainError('CONFLICT', 'webhook already exists', [{ message: 'A webhook with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const settings = settingsFrom(command.input, null);
        return [{ type: 'WebhookCreated', version: 1, data: { ...settings, webhookUuid: command.webhookUuid, appUuid: command.appUuid } }];
      }
      case 'UpdateWebhook': {
        live(state);
        const next = settingsFrom(command.input, state.settings);
        const changes = Object.fromEntries(
          (Object.keys(next) as (keyof WebhookSettings)[]).filter((k) => !same(next[k], state.settings![k])).map((k) => [k, next[k]]),
        ) as Partial<WebhookSettings>;
        const secretRotated = command.input.secret !== undefined;
        return Object.keys(changes).length === 0 && !secretRotated ? [] : [{ type: 'WebhookUpdated', version: 1, data: { changes, secretRotated } }];
      }
      case 'DeleteWebhook':
        live(state);
        return [{ type: 'WebhookDeleted', version: 1, data: { webhookUuid: state.webhookUuid } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookCreated': {
        const { webhookUuid, appUuid, ...settings } = event.data;
        return { exists: true, deleted: false, webhookUuid, appUuid, settings };
      }
      case 'WebhookUpdated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'WebhookDeleted':
        return { ...state, deleted: true };
    }
  },
};
