import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAppWithAdmin } from '../support/test-app.js';
import { anObjectWith, call, expectErrorBody } from '../records/records-fixtures.js';

// Issue 32, item 8: docs/forms.md's first form, posted as written there (the JSON block after each
// marker), with only the object's uuid filled in.
const doc = readFileSync(resolve(import.meta.dirname, '../../docs/forms.md'), 'utf8');
const example = (marker: string): string => {
  const at = doc.indexOf(`<!-- example:${marker} -->`);
  expect(at, `docs/forms.md has the example ${marker}`).toBeGreaterThan(-1);
  return /```json\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
};

const app = useAppWithAdmin({ REACTORS_ENABLED: 'false' });

describe("docs/forms.md's first form", () => {
  it('is accepted as written, and a visitor submits the example answers', async () => {
    const { t, admin: owner } = app;
    const contact = await anObjectWith(t.app, owner, { name: {}, email: { format: 'email' } });
    const body = JSON.parse(example('first-form').replace('<objectUuid>', contact.uuid));
    const created = await call(t.app, owner, 'POST', '/api/v2/forms', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'contact-us', objectUuid: contact.uuid, published: true });
    expect(created.body.data.items.map((i: { kind: string }) => i.kind)).toEqual(['heading', 'property', 'property']);

    const submit = await t.app.inject({
      method: 'POST',
      url: `/api/v2/forms/public/${owner.companyUuid}/${created.body.data.uuid}/submit`,
      payload: JSON.parse(example('first-form-submit')),
    });
    expect(submit.statusCode, submit.body).toBe(201);
    const rows = await t.platform.db.query<{ vals: Record<string, unknown> }>('select vals from records where tenant = $1 and object_name = $2', [owner.companyUuid, contact.name]);
    expect(rows.map((r) => r.vals)).toEqual([{ name: 'Ada Lovelace', email: 'ada@example.com' }]);
  });

  it('without kind, an item is refused with the 400 the doc quotes', async () => {
    const { t, admin: owner } = app;
    const contact = await anObjectWith(t.app, owner, { name: {} });
    const body = JSON.parse(example('first-form').replace('<objectUuid>', contact.uuid));
    const { kind: _, ...withoutKind } = body.items[0];
    const res = await call(t.app, owner, 'POST', '/api/v2/forms', { ...body, name: 'no-kind', items: [withoutKind] });
    expectErrorBody(res, 400);
    const quoted = /An item without `kind` is refused:\s+400, `([^`]+)`/.exec(doc)![1]!.replace(/\s+/g, ' ');
    expect(res.body.errors.map((e: { message: string }) => e.message)).toContain(quoted);
  });
});
