/**
 * Outbound HTTP: every request the platform makes to an address a tenant, an app or a provider
 * chose goes through here (webhook deliveries and tests, app calls and ACTION triggers, OAuth).
 * The address guard resolves and checks the host, the sender connects to the address it checked
 * and follows no redirect, the signing is Standard Webhooks. test/architecture.test.ts keeps
 * undici, node:http(s) and fetch out of every other file of the server, and this file the only
 * way in.
 */
export { addressRange, makeUrlGuard, UrlRefused, type Lookup, type SafeTarget, type UrlGuard } from './address-guard.js';
export { dropAnswer, readAnswer, SendFailed, sendPinned, type Answer, type NoAnswer, type OutboundRequest } from './sender.js';
export { signatureHeaders } from './signing.js';
