import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { lastPageOf } from '../../aggregates/kernel/paging.js';

/** The spec's success envelope (2.1). */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ message: z.string(), data });

/** The spec's list envelope: the success envelope plus the page counters. */
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    message: z.string(),
    data: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    perPage: z.number().int(),
    lastPage: z.number().int(),
  });

export const ok = <T>(data: T, message = 'success') => ({ message, data });

/** A list answer: `page` is the page served (from 0), `lastPage` the number of the last one (0 when empty). */
export function page<T>(items: T[], total: number, pageNumber: number, perPage: number, message = 'success') {
  return { message, data: items, total, page: pageNumber, perPage, lastPage: lastPageOf(total, perPage) };
}

/** `ok` around `data` written as JSON text already: `JSON.stringify(ok(JSON.parse(data), message))`. */
export const okJson = (data: string, message = 'success') => `{"message":${JSON.stringify(message)},"data":${data}}`;

/** `page` around items written as JSON text already: `JSON.stringify(page(items.map(JSON.parse), ...))`. */
export function pageJson(items: readonly string[], total: number, pageNumber: number, perPage: number, message = 'success') {
  const counters = `"total":${JSON.stringify(total)},"page":${JSON.stringify(pageNumber)},"perPage":${JSON.stringify(perPage)},"lastPage":${JSON.stringify(lastPageOf(total, perPage))}`;
  return `{"message":${JSON.stringify(message)},"data":[${items.join(',')}],${counters}}`;
}

/** Sends JSON text as it is, with the content type Fastify gives the JSON it writes: no serializer runs. */
export const sendJson = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text);
