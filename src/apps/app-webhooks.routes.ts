import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../aggregates/kernel/errors.js';
import { commandContext, companyActor } from '../auth/actor.js';
import { envelope, ok } from '../http/envelope.js';
import { createWebhookBodySchema, toWebhook, webhookSchema, type OwnerOf, type WebhookRuntime } from '../webhooks/webhooks.module.js';
import type { AppsService } from './apps.service.js';

const APP_IN_PATH = /\/apps\/([0-9a-fA-F-]{36})(?:\/|$|\?)/;
const appParam = { appUuid: z.uuid() };

/**
 * App webhooks (spec 4.14 `webhooks/apps/{appUuid}`, 4.17): the webhook routes of the webhooks
 * feature, owned by the app, for a company that has the app installed. Not installed (or an
 * app the company cannot see) is a 404, like a missing app.
 */
export const appWebhooksRoutes = (deps: { apps: AppsService; webhookRuntime: WebhookRuntime }): FastifyPluginAsyncZod =>
  async (app) => {
    const { apps, webhookRuntime } = deps;
    // The app uuid is read from the path: the inner routes' params schemas do not carry it.
    const ownerOf: OwnerOf = async (request: FastifyRequest) => {
      const tenant = companyActor(request).tenant;
      const appUuid = APP_IN_PATH.exec(request.url)?.[1]?.toLowerCase();
      if (!appUuid) throw notFound('App', 'requested');
      await apps.installed(tenant, appUuid);
      return { tenant, appUuid };
    };

    await app.register(
      async (scope) => {
        // The inner routes are the webhooks feature's, whose params do not name the app: each gets
        // `appUuid` added, so it is validated and the document declares it (issue 34).
        scope.addHook('onRoute', (route) => {
          const params = route.schema?.params;
          route.schema = { ...route.schema, params: params instanceof z.ZodObject ? params.extend(appParam) : z.object(appParam) };
        });
        await scope.register(webhookRuntime.routesFor(ownerOf));
      },
      { prefix: '/api/v2/apps/:appUuid/webhooks' },
    );

    app.post(
      '/api/v2/webhooks/apps/:appUuid',
      {
        config: { auth: { scopes: ['webhooks:write'] as const } },
        schema: { tags: ['webhooks'], description: 'Creates a webhook for an app installed in the selected company (same as POST /apps/{appUuid}/webhooks).', params: z.object(appParam), body: createWebhookBodySchema, response: { 201: envelope(webhookSchema) } },
      },
      async (request, reply) => {
        const owner = await ownerOf(request);
        const row = await webhookRuntime.webhooks.create(commandContext(request), owner, request.body);
        reply.code(201);
        return ok(await app.audit.one(owner.tenant, row, toWebhook), 'created');
      },
    );
  };
