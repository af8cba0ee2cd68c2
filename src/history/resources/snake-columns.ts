/** `pageSize` -> `page_size`: the column a projection writes a setting to (views, webhooks). */
export const columnOf = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The row's columns for settings given by their API names. */
export const columnsOf = (settings: Record<string, unknown>) => Object.fromEntries(Object.entries(settings).map(([k, v]) => [columnOf(k), v]));
