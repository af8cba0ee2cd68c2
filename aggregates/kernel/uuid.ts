/** A uuid in its text form (any version, either case). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (v: unknown): boolean => typeof v === 'string' && UUID.test(v);
