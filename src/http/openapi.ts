import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { uploadRequestBody } from './upload-body.js';
import { withErrorResponses } from './error-responses.js';

/** The OpenAPI 3 document, generated from the routes' zod schemas, and a docs page over it. */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Multi-tenant Dynamic Data Platform API', version: '2.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // An upload route's multipart body is declared in its config (upload-body.ts), not as a zod body.
    // Every operation with a declared response also lists the error statuses its kind can answer
    // (error-responses.ts), with the error body.
    transform: (input) => {
      const response = input.schema && withErrorResponses(input.route, input.schema as Parameters<typeof withErrorResponses>[1]);
      const out = jsonSchemaTransform(response ? { ...input, schema: { ...input.schema, response } } : input);
      const upload = input.route.config?.upload;
      return upload ? { ...out, schema: { ...out.schema, body: uploadRequestBody(upload) } } : out;
    },
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/api/v2/docs', uiConfig: { url: '/api/v2/openapi.json' } as never });
  app.get('/api/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
