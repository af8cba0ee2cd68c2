import { v7 } from 'uuid';

/** A uuid in its text form (any version, either case). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (v: unknown): boolean => typeof v === 'string' && UUID.test(v);

/**
 * A new time-ordered uuid (RFC 9562 version 7: the millisecond first, then random bits; later ones
 * sort after earlier ones, within a millisecond too). For the ids of rows made at a high rate
 * (records, request ids): their index keys land beside the last ones instead of on a random page
 * of each index (ADR 0018).
 */
export const timeOrderedUuid = (): string => v7();
