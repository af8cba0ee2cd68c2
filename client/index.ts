// The typed client of the platform's API (docs/client.md): openapi-fetch over the types that
// openapi-typescript makes from the server's OpenAPI document (client/api.generated.ts).
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './api.generated.js';
import { ApiError, apiError } from './errors.js';
import { pageOf, walkPages, type Page } from './pagination.js';

export type { components, operations, paths } from './api.generated.js';
export { ApiError, isErrorBody, type ErrorBody } from './errors.js';
export { collect, type Page } from './pagination.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Media = `${string}/${string}`;
/** The paths that have `method`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];
type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Op<P extends keyof paths, M extends Method> = Extract<paths[P][M], Record<string | number, any>>;
type Success<R> = R extends { data: infer D } ? D : never;
/** The payload of a success envelope (`{message, data}` -> data); an answer of another shape as it is. */
export type Unwrapped<B> = B extends { message: string; data: infer D } ? D : B;
/** The item of a list envelope. */
export type ItemOf<B> = B extends { data: (infer T)[]; total: number } ? T : never;

type Call<M extends Method> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<Unwrapped<Success<FetchResponse<Op<P, M>, I, Media>>>>;
type ListCall<M extends 'get' | 'post'> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<Page<ItemOf<Success<FetchResponse<Op<P, M>, I, Media>>>>>;
type WalkCall<M extends 'get' | 'post'> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => AsyncGenerator<ItemOf<Success<FetchResponse<Op<P, M>, I, Media>>>>;

export interface ClientOptions {
  /** The server's origin, for example `http://127.0.0.1:3000` (the paths start with /api/v2). Empty in a browser on the same origin. */
  baseUrl: string;
  /** A session token (POST /api/v2/auth/login answers one). */
  token?: string | null;
  /** Another fetch (tests, a proxy agent). */
  fetch?: typeof globalThis.fetch;
  /** Called with every ApiError before it is thrown (a console shows it, a CLI logs it). */
  onError?: (error: ApiError) => void;
}

export interface PlatformClient {
  /** The openapi-fetch client itself: `{ data, error, response }`, nothing thrown, nothing unwrapped. */
  raw: Client<paths, Media>;
  get: Call<'get'>;
  post: Call<'post'>;
  put: Call<'put'>;
  patch: Call<'patch'>;
  delete: Call<'delete'>;
  /** One page of a list route: the items and the counters (`total`, `page`, `perPage`, `lastPage`). */
  listGet: ListCall<'get'>;
  listPost: ListCall<'post'>;
  /** Every item of a list route, page after page (pages count from 0; POST index routes take `body.page`, GET routes `query.page`). */
  eachGet: WalkCall<'get'>;
  eachPost: WalkCall<'post'>;
  /** The session token sent as `Authorization: Bearer`; null signs out of the client. */
  token: string | null;
  setToken(token: string | null): void;
  /** Logs in and keeps the token. */
  login(email: string, password: string): Promise<{ token: string; user: { uuid: string; email: string } }>;
  /** Selects the company the next requests act for. */
  selectCompany(companyUuid: string): Promise<void>;
  /** The X-Request-Id of the last answer (success or error): what support searches the event log for. */
  lastRequestId: string | null;
}

export function createPlatformClient(options: ClientOptions): PlatformClient {
  const raw = createClient<paths, Media>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const state = { token: options.token ?? null, lastRequestId: null as string | null };
  raw.use({
    onRequest({ request }) {
      if (state.token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${state.token}`);
      return request;
    },
    onResponse({ response }) {
      state.lastRequestId = response.headers.get('x-request-id');
      return response;
    },
  });

  async function settle(method: string, path: string, promise: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<unknown> {
    const { data, error, response } = await promise;
    if (!response.ok || error !== undefined) {
      const failure = apiError(method, path, response, error);
      options.onError?.(failure);
      throw failure;
    }
    return data;
  }
  const invoke = (method: Uppercase<Method>) => async (path: string, init?: object) => settle(method, path, (raw[method] as (p: string, i?: object) => Promise<{ response: Response }>)(path, init));
  const unwrap = (method: Uppercase<Method>) => async (path: string, init?: object) => {
    const body = await invoke(method)(path, init);
    return body && typeof body === 'object' && 'message' in body && 'data' in body ? (body as { data: unknown }).data : body;
  };
  const list = (method: 'GET' | 'POST') => async (path: string, init?: object) => pageOf(await invoke(method)(path, init));
  const walk = (method: 'GET' | 'POST') => (path: string, init?: object) => walkPages((n) => list(method)(path, withPage(method, init, n)), startPage(method, init));

  const client = {
    raw,
    get: unwrap('GET'),
    post: unwrap('POST'),
    put: unwrap('PUT'),
    patch: unwrap('PATCH'),
    delete: unwrap('DELETE'),
    listGet: list('GET'),
    listPost: list('POST'),
    eachGet: walk('GET'),
    eachPost: walk('POST'),
    get token() {
      return state.token;
    },
    set token(value: string | null) {
      state.token = value;
    },
    setToken(token: string | null) {
      state.token = token;
    },
    get lastRequestId() {
      return state.lastRequestId;
    },
    async login(email: string, password: string) {
      const data = (await unwrap('POST')('/api/v2/auth/login', { body: { email, password } })) as { token: string; user: { uuid: string; email: string } };
      state.token = data.token;
      return data;
    },
    async selectCompany(companyUuid: string) {
      await unwrap('POST')('/api/v2/auth/companies/{companyUuid}/select', { params: { path: { companyUuid } } });
    },
  };
  return client as unknown as PlatformClient;
}

function startPage(method: 'GET' | 'POST', init?: object): number {
  const i = init as { body?: { page?: number }; params?: { query?: { page?: number } } } | undefined;
  return (method === 'POST' ? i?.body?.page : i?.params?.query?.page) ?? 0;
}

function withPage(method: 'GET' | 'POST', init: object | undefined, n: number): object {
  const i = (init ?? {}) as { body?: object; params?: { query?: object } };
  return method === 'POST' ? { ...i, body: { ...(i.body ?? {}), page: n } } : { ...i, params: { ...(i.params ?? {}), query: { ...(i.params?.query ?? {}), page: n } } };
}

