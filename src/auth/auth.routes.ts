import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { envelope, ok } from '../http/envelope.js';
import { signedInActor } from './actor.js';
import { forgotBodySchema, loginBodySchema, registerBodySchema, resetBodySchema, sessionSchema, userObjectSchema, verifyBodySchema } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import { revokeSession } from './sessions.js';
import type { Db } from '../db/db.js';

const tags = ['auth'];
const done = envelope(z.null());

/** Register, log in and out, the caller's profile, company selection, password reset, e-mail verification. */
export const authRoutes = (deps: { auth: AuthService; db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { auth } = deps;

    app.post('/register', { config: { auth: 'public' }, schema: { tags, body: registerBodySchema, response: { 201: envelope(sessionSchema) } } }, async (request, reply) => {
      reply.code(201);
      return ok(await auth.register(request.body, request.id), 'registered');
    });

    app.post(
      '/login',
      {
        config: { auth: 'public' },
        schema: { tags, description: 'Returns an opaque bearer token. Repeated failures for one account or address answer 429.', body: loginBodySchema, response: { 200: envelope(sessionSchema) } },
      },
      async (request, reply) => {
        try {
          return ok(await auth.login(request.body, request.ip), 'logged in');
        } catch (err) {
          if ((err as { code?: string }).code === 'UNAUTHENTICATED') reply.header('www-authenticate', 'Bearer');
          throw err;
        }
      },
    );

    app.post('/logout', { config: { auth: 'signed-in' }, schema: { tags, response: { 200: done } } }, async (request) => {
      await revokeSession(deps.db, signedInActor(request).sessionId, Date.now());
      return ok(null, 'logged out');
    });

    app.get('/me', { config: { auth: 'signed-in' }, schema: { tags, response: { 200: envelope(userObjectSchema) } } }, async (request) =>
      ok(await auth.profile(signedInActor(request))),
    );

    app.post(
      '/companies/:companyUuid/select',
      { config: { auth: 'signed-in' }, schema: { tags, params: z.object({ companyUuid: z.uuid() }), response: { 200: envelope(userObjectSchema) } } },
      async (request) => ok(await auth.selectCompany(signedInActor(request), request.params.companyUuid, request.id), 'company selected'),
    );

    app.post(
      '/password/forgot',
      { config: { auth: 'public' }, schema: { tags, description: 'Answers the same whether or not the account exists.', body: forgotBodySchema, response: { 200: done } } },
      async (request) => {
        await auth.forgotPassword(request.body.email);
        return ok(null, 'If the address belongs to an account, a reset link is on its way');
      },
    );

    app.post('/password/reset', { config: { auth: 'public' }, schema: { tags, body: resetBodySchema, response: { 200: done } } }, async (request) => {
      await auth.resetPassword(request.body.token, request.body.password, request.id);
      return ok(null, 'password changed; every session was signed out');
    });

    app.post('/verify', { config: { auth: 'public' }, schema: { tags, body: verifyBodySchema, response: { 200: done } } }, async (request) => {
      await auth.verifyEmail(request.body.token, request.id);
      return ok(null, 'e-mail address verified');
    });

    app.post('/verify/resend', { config: { auth: 'signed-in' }, schema: { tags, response: { 200: done } } }, async (request) => {
      await auth.resendVerification(signedInActor(request));
      return ok(null, 'verification mail sent');
    });
  };
