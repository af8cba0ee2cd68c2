import { z } from 'zod';

/** What a function may reach through the host API; the installing company grants them by installing (docs/apps.md, "Functions"). */
export const functionScopes = ['records:read', 'records:write', 'fetch'] as const;
export type FunctionScope = (typeof functionScopes)[number];

export const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** One function of a build: its export name and limits below the platform's (config) ones. */
export const functionSpecSchema = z.object({
  name: z.string().regex(FUNCTION_NAME, 'a letter, then up to 63 letters, digits or _ (the name the bundle exports)'),
  cpuMs: z.number().int().min(1).max(600_000).optional(),
  memoryMb: z.number().int().min(1).max(4096).optional(),
  wallMs: z.number().int().min(1).max(3_600_000).optional(),
  outputBytes: z.number().int().min(1).max(64 * 1024 * 1024).optional(),
});
export type FunctionSpec = z.infer<typeof functionSpecSchema>;

/** The manifest of a build: the functions its bundle exports and the scopes they use. */
export const deployManifestSchema = z.object({
  functions: z.array(functionSpecSchema).min(1).max(100),
  scopes: z.array(z.enum(functionScopes)).max(functionScopes.length).default([]),
});
export type DeployManifest = z.infer<typeof deployManifestSchema>;
