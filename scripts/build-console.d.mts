/** Builds the web console into `<root>/dist/console`; answers the bundle's size in bytes (scripts/build-console.mjs). */
export function buildConsole(root: string): Promise<number>;
