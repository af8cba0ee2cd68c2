import { z } from 'zod';
import { problems } from '../kernel/problems.js';

export const settingTypes = ['TEXT', 'NUMBER', 'BOOLEAN', 'SINGLE_SELECT', 'MULTI_SELECT', 'SECRET', 'ACTION'] as const;
export const settingScopes = ['COMPANY', 'USER'] as const;
export type SettingScope = (typeof settingScopes)[number];

const optionSchema = z.object({ value: z.string().min(1).max(200), label: z.string().min(1).max(200) });

/** One field of an app's settings schema. */
export const settingFieldSchema = z.object({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a letter, then up to 63 letters, digits, _ or -'),
  label: z.string().min(1).max(200),
  description: z.string().max(2000).default(''),
  type: z.enum(settingTypes),
  scope: z.enum(settingScopes).default('COMPANY'),
  required: z.boolean().default(false),
  default: z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(200)).max(200)]).nullable().default(null),
  options: z.array(optionSchema).max(500).nullable().default(null),
  optionsUrl: z.string().url().max(2000).nullable().default(null),
});
export type SettingField = z.infer<typeof settingFieldSchema>;
export const settingsSchemaSchema = z.array(settingFieldSchema).max(200);
export type SettingsSchema = z.infer<typeof settingsSchemaSchema>;

export type SettingValue = string | number | boolean | string[];
export type SettingValues = Record<string, SettingValue>;

const isSelect = (f: SettingField) => f.type === 'SINGLE_SELECT' || f.type === 'MULTI_SELECT';

/** Why `value` does not fit `field`, or null when it does. */
export function valueProblem(field: SettingField, value: unknown): string | null {
  switch (field.type) {
    case 'TEXT':
      return typeof value === 'string' && value.length <= 10_000 ? null : 'must be a text of at most 10000 characters';
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'SINGLE_SELECT':
      if (typeof value !== 'string') return 'must be one option value (a string)';
      return field.options && !field.options.some((o) => o.value === value) ? `must be one of ${field.options.map((o) => o.value).join(', ')}` : null;
    case 'MULTI_SELECT': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'must be a list of option values';
      const bad = field.options ? value.filter((v) => !field.options!.some((o) => o.value === v)) : [];
      return bad.length ? `holds values that are not options: ${bad.join(', ')}` : null;
    }
    case 'SECRET':
      return 'is a SECRET: set it among the secrets of the installation, not its settings';
    case 'ACTION':
      return 'is an ACTION: trigger it; it holds no value';
  }
}

/** The rules the shape alone cannot say: unique names, options where they belong, a default that fits. */
export function checkSettingsSchema(schema: SettingsSchema, prefix = 'settingsSchema') {
  const p = problems();
  const seen = new Set<string>();
  schema.forEach((f, i) => {
    const at = `${prefix}[${i}]`;
    if (seen.has(f.name)) p.add(`${at}.name`, `the name ${f.name} is used twice`, 'Give every field a distinct name');
    seen.add(f.name);
    if (isSelect(f) && !f.options?.length && !f.optionsUrl) p.add(`${at}.options`, `a ${f.type} field needs options or an optionsUrl`, 'Send options [{value, label}] or an optionsUrl');
    if (!isSelect(f) && (f.options || f.optionsUrl)) p.add(`${at}.options`, `a ${f.type} field takes no options`, 'Remove options and optionsUrl, or make the field a SINGLE_SELECT or MULTI_SELECT');
    if ((f.type === 'SECRET' || f.type === 'ACTION') && f.default !== null) p.add(`${at}.default`, `a ${f.type} field has no default`, 'Remove the default');
    if (f.type === 'ACTION' && f.required) p.add(`${at}.required`, 'an ACTION field cannot be required', 'Set required to false');
    if (f.type !== 'SECRET' && f.type !== 'ACTION' && f.default !== null) {
      const problem = valueProblem(f, f.default);
      if (problem) p.add(`${at}.default`, `the default ${problem}`, `Send a default that fits the ${f.type} type, or none`);
    }
  });
  p.throwIfAny('The settings schema has problems');
}

/**
 * Checks `values` against the `scope` fields of the schema; every problem names its field. With
 * `complete`, required fields of the scope without a value or a default are missing.
 */
export function checkSettingValues(schema: SettingsSchema, scope: SettingScope, values: Record<string, unknown>, opts: { complete?: boolean; prefix?: string } = {}) {
  const prefix = opts.prefix ?? 'settings';
  const p = problems();
  for (const [name, value] of Object.entries(values)) {
    const field = schema.find((f) => f.name === name);
    if (!field) {
      p.add(`${prefix}.${name}`, 'is not a field of the app\'s settings schema', `Use one of: ${schema.filter((f) => f.scope === scope).map((f) => f.name).join(', ') || '(none)'}`);
      continue;
    }
    if (field.scope !== scope) {
      p.add(`${prefix}.${name}`, `is a ${field.scope}-scoped field`, field.scope === 'USER' ? "Save it among each user's own settings of the installation" : "Save it among the company's settings of the installation");
      continue;
    }
    const problem = value === null ? (field.required ? 'is required and cannot be cleared' : null) : valueProblem(field, value);
    if (problem) p.add(`${prefix}.${name}`, problem, `Send a value that fits the ${field.type} field ${name}`, 'INVALID_VALUE');
  }
  if (opts.complete) {
    for (const f of schema) {
      if (f.scope === scope && f.required && f.type !== 'SECRET' && values[f.name] === undefined && f.default === null) {
        p.add(`${prefix}.${f.name}`, 'is required', `Send a value for ${f.name}`);
      }
    }
  }
  p.throwIfAny('Some settings do not fit the app\'s settings schema');
}

/** The values with each field's default filled in where none is given. */
export function withDefaults(schema: SettingsSchema, scope: SettingScope, values: SettingValues): SettingValues {
  const out: SettingValues = {};
  for (const f of schema) if (f.scope === scope && f.default !== null) out[f.name] = f.default;
  return { ...out, ...values };
}
