import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { optionalBody } from '../http/optional-body.js';
import type { RuntimeService } from './runtime.service.js';

const tags = ['app runtime'];
const appParams = z.object({ appUuid: z.uuid() });
const keyParams = appParams.extend({ key: z.string().min(1).max(100) });
const nameParams = appParams.extend({ name: z.string().min(1).max(100) });
const fieldParams = appParams.extend({ fieldName: z.string().min(1).max(64) });
const stateMap = z.record(z.string().min(1).max(100), z.unknown()).refine((m) => Object.keys(m).length <= 200, 'at most 200 keys at once');
const settingsMap = z.record(z.string().min(1).max(64), z.unknown()).refine((m) => Object.keys(m).length <= 200, 'at most 200 fields at once');
const values = z.record(z.string(), z.unknown());
const delivered = z.object({ delivered: z.boolean(), statusCode: z.number().int() });

/** The installation runtime (spec 4.16, jobs aside) under /apps/{appUuid}/installation, and dynamic options. */
export const runtimeRoutes = (deps: { runtime: RuntimeService }): FastifyPluginAsyncZod =>
  async (app) => {
    const { runtime } = deps;
    const member = { auth: {} };
    const admin = { auth: { scopes: ['apps:install'] as const } };
    const base = '/:appUuid/installation';
    const tenantOf = (request: Parameters<typeof companyActor>[0]) => companyActor(request).tenant;

    app.get(`${base}/state`, { config: member, schema: { tags, params: appParams, response: { 200: envelope(values) } } }, async (request) => ok(await runtime.state(tenantOf(request), request.params.appUuid)));

    app.put(`${base}/state`, { config: member, schema: { tags, description: 'Shallow merge: the keys sent replace theirs, the others stay.', params: appParams, body: stateMap, response: { 200: envelope(values) } } }, async (request) =>
      ok(await runtime.changeState(commandContext(request), request.params.appUuid, request.body), 'updated'),
    );

    app.get(`${base}/state/:key`, { config: member, schema: { tags, params: keyParams, response: { 200: envelope(z.unknown()) } } }, async (request) =>
      ok(await runtime.stateKey(tenantOf(request), request.params.appUuid, request.params.key)),
    );

    app.put(`${base}/state/:key`, { config: member, schema: { tags, description: 'Body {value}.', params: keyParams, body: z.object({ value: z.unknown() }), response: { 200: envelope(values) } } }, async (request) =>
      ok(await runtime.changeState(commandContext(request), request.params.appUuid, { [request.params.key]: request.body.value ?? null }), 'updated'),
    );

    app.delete(`${base}/state/:key`, { config: member, schema: { tags, params: keyParams, response: { 200: envelope(values) } } }, async (request) => {
      await runtime.stateKey(tenantOf(request), request.params.appUuid, request.params.key);
      return ok(await runtime.changeState(commandContext(request), request.params.appUuid, {}, [request.params.key]), 'deleted');
    });

    app.get(
      `${base}/settings`,
      { config: member, schema: { tags, description: 'COMPANY settings and the caller\'s USER settings (never secrets).', params: appParams, response: { 200: envelope(z.object({ company: values, user: values })) } } },
      async (request) => ok(await runtime.settings(tenantOf(request), request.params.appUuid, companyActor(request).userUuid)),
    );

    app.put(`${base}/settings`, { config: admin, schema: { tags, description: 'Merges COMPANY-scoped settings; null removes a field.', params: appParams, body: settingsMap, response: { 200: envelope(values) } } }, async (request) =>
      ok(await runtime.changeSettings(commandContext(request), request.params.appUuid, request.body), 'updated'),
    );

    app.put(`${base}/settings/user`, { config: member, schema: { tags, description: 'Merges the caller\'s USER-scoped settings.', params: appParams, body: settingsMap, response: { 200: envelope(values) } } }, async (request) =>
      ok(await runtime.changeUserSettings(commandContext(request), request.params.appUuid, companyActor(request).userUuid, request.body), 'updated'),
    );

    app.get(`${base}/secrets`, { config: member, schema: { tags, description: 'Secret names only, never values.', params: appParams, response: { 200: envelope(z.array(z.object({ name: z.string(), updatedAt: z.number().int() }))) } } }, async (request) =>
      ok(await runtime.secretNames(tenantOf(request), request.params.appUuid)),
    );

    app.put(
      `${base}/secrets/:name`,
      { config: admin, schema: { tags, description: 'Sets a secret (sealed with AES-256-GCM); answers its name only.', params: nameParams, body: z.object({ value: z.string().min(1).max(16_384) }), response: { 200: envelope(z.object({ name: z.string() })) } } },
      async (request) => ok(await runtime.setSecret(commandContext(request), request.params.appUuid, request.params.name, request.body.value), 'saved'),
    );

    app.delete(`${base}/secrets/:name`, { config: admin, schema: { tags, params: nameParams, response: { 200: envelope(z.string()) } } }, async (request) => {
      await runtime.deleteSecret(commandContext(request), request.params.appUuid, request.params.name);
      return ok(request.params.name, 'deleted');
    });

    app.post(
      `${base}/settings/:fieldName/trigger`,
      {
        config: member,
        schema: { tags, description: 'Fires an ACTION field at the app\'s webhookUrl (signed); saves nothing. Body: optional draft settings values.', params: fieldParams, body: optionalBody(z.object({ settings: settingsMap.default({}) }), () => ({ settings: {} })), response: { 200: envelope(delivered) } },
      },
      async (request) => ok(await runtime.triggerAction(commandContext(request), request.params.appUuid, request.params.fieldName, request.body.settings), 'triggered'),
    );

    app.post(
      '/:appUuid/settings-schema/options',
      {
        config: member,
        schema: {
          tags,
          description: 'Options of a SINGLE_SELECT / MULTI_SELECT field, loaded from its optionsUrl (signed, through the webhook address guard), with the draft settings schema when given.',
          params: appParams,
          body: z.object({ fieldName: z.string().min(1).max(64), settingsSchema: z.array(z.unknown()).max(200).optional(), settings: settingsMap.default({}) }),
          response: { 200: envelope(z.array(z.object({ value: z.string(), label: z.string() }))) },
        },
      },
      async (request) => ok(await runtime.options(tenantOf(request), request.params.appUuid, request.body.fieldName, request.body.settingsSchema, request.body.settings)),
    );
  };
