import { z } from 'zod';

/**
 * The longest path parameter the router takes (find-my-way's `maxParamLength`, counted after
 * percent-decoding): a longer one is a 414 before any route runs. `buildApp` gives it to the
 * router; the schemas of path parameters say no more than it (test/http-edge/openapi-contract).
 */
export const MAX_PATH_PARAM_LENGTH = 100;

/** A free-text path parameter, documented as long as the router accepts. */
export const pathText = () => z.string().min(1).max(MAX_PATH_PARAM_LENGTH);
