import { invalid } from '../kernel/errors.js';
import type { ModuleField, ModuleSettings } from '../module/module.schemas.js';
import type { PageModule } from './page.document.js';

/**
 * The module definitions a page's modules are checked against, by name: the company's, the
 * editor's personal ones and those of the company's installed apps (named `<appUuid>/<name>`). `retired` definitions (an app dropped them) still check their fields,
 * so pages that use them keep rendering and stay editable.
 */
export type ModuleCatalogue = ReadonlyMap<string, ModuleSettings & { retired?: boolean }>;

const isMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOk(field: ModuleField, value: unknown): boolean {
  switch (field.type) {
    case 'text':
    case 'richtext':
    case 'image':
    case 'link':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'select':
      return typeof value === 'string' && (field.options === undefined || field.options.includes(value));
    case 'list':
      return Array.isArray(value);
    case 'json':
      return true;
  }
}

/** The names a page may newly use: the catalogue less its retired definitions. */
const usable = (catalogue: ModuleCatalogue) => [...catalogue.entries()].filter(([, d]) => !d.retired).map(([name]) => name);

/**
 * Checks a module's fields against its definition: a 400 naming the module and the field. A
 * retired definition checks the fields of a module the page already held (`placed`), and refuses
 * a module newly placed on the page.
 */
export function checkModuleFields(catalogue: ModuleCatalogue, m: PageModule, where: string, placed = false) {
  const definition = catalogue.get(m.module);
  if (!definition) {
    const known = usable(catalogue).slice(0, 20).join(', ') || '(none: define a module first)';
    throw invalid(`${where}.module`, `${where}: module "${m.module}" is not defined`, `Use one of the defined modules: ${known}`, 'INVALID_VALUE');
  }
  if (definition.retired && !placed) {
    const known = usable(catalogue).slice(0, 20).join(', ') || '(none)';
    throw invalid(`${where}.module`, `${where}: module "${m.module}" is retired by its app: pages that already use it keep it, but it cannot be added`, `Use a module that is not retired: ${known}`, 'INVALID_VALUE');
  }
  const byName = new Map(definition.fields.map((f) => [f.name, f]));
  for (const [name, value] of Object.entries(m.fields)) {
    const field = byName.get(name);
    if (!field) {
      throw invalid(`${where}.fields.${name}`, `${where}: module "${m.module}" has no field "${name}"`, `Use the fields of ${m.module}: ${[...byName.keys()].join(', ') || '(none)'}`, 'INVALID_VALUE');
    }
    if (value === null) continue;
    if (!typeOk(field, value)) {
      const expected = field.type === 'select' && field.options ? `one of ${field.options.join(', ')}` : `a ${field.type} value`;
      throw invalid(`${where}.fields.${name}`, `${where}: field "${name}" of module "${m.module}" must be ${expected}`, `Send ${name} as ${expected}`, 'INVALID_VALUE');
    }
    if (field.type === 'json' && isMap(value) && JSON.stringify(value).length > 100_000) {
      throw invalid(`${where}.fields.${name}`, `${where}: field "${name}" of module "${m.module}" is over 100,000 characters`, 'Send a smaller value', 'INVALID_VALUE');
    }
  }
  for (const field of definition.fields) {
    const value = m.fields[field.name];
    if (field.required && (value === undefined || value === null || value === '') && field.default === undefined) {
      throw invalid(`${where}.fields.${field.name}`, `${where}: field "${field.name}" of module "${m.module}" is required`, `Send ${field.name} in the module's fields`, 'VALIDATION');
    }
  }
}
