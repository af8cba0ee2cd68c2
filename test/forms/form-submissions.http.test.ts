import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { call, data } from '../schema/schema-fixtures.js';
import { createForm, leadSchema, scoringRules, threeStepForm } from './form-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let rx: Receiver;
let schema: Awaited<ReturnType<typeof leadSchema>>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_RATE_LIMIT_MAX: '1000', FORMS_RATE_LIMIT_MAX: '0' });
  owner = await signUpWithCompany(t.app);
  schema = await leadSchema(t.app, owner);
  rx = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const submit = (form: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/v2/forms/public/${owner.companyUuid}/${form}/submit`, payload: payload as object, headers: { 'user-agent': 'hook-visitor' } }).then((r) => ({ status: r.statusCode, body: r.json() }));

describe('FormSubmissionEvent', () => {
  it('a webhook on FormSubmissionEvent receives the submission', async () => {
    const secret = `whsec_${Buffer.from('a form webhook secret, long enough').toString('base64')}`;
    const hook = await call(t.app, owner, 'POST', '/api/v2/webhooks', { url: `${rx.url}/forms`, secret, topic: 'FormSubmissionEvent', webhookFormat: 'structured' });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'hooked' }));
    const res = await submit(form.uuid, { answers: { name: 'Ada', email: 'ada@corp.example', budget: 10 }, inner: { contacts: [{ fullname: 'Grace' }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [delivery] = await waitFor(() => (rx.on('/forms').length > 0 ? rx.on('/forms') : null), 60_000, 'FormSubmissionEvent delivery');
    const body = JSON.parse(delivery!.body);
    expect(body.type).toBe('FormSubmissionEvent');
    expect(body.data.payload).toMatchObject({ submissionUuid: res.body.data.submissionUuid, formUuid: form.uuid, formRevision: 0, score: 10, visitor: { address: '127.0.0.0', userAgent: 'hook-visitor' } });
    expect(body.data.payload.recordUuids).toHaveLength(2);
    expect(body.data.payload.related[0]).toMatchObject({ itemId: 'contacts', objectName: schema.contact.name, relationUuid: schema.relation.uuid });
  });
});

/** The rules read plainly, apart from the code under test. */
function plainScore(answers: Record<string, unknown>): number {
  let total = 0;
  const budget = answers.budget;
  if (typeof budget === 'number' && budget >= 1000) total += 30;
  if (answers.country === 'NL' || answers.country === 'DE') total += 20;
  if (typeof answers.email === 'string' && answers.email.toLowerCase().includes('@corp.')) total += 10;
  if (answers.name === 'VIP') total += 5;
  return total;
}

describe('lead scoring', () => {
  it('for random answers the stored score equals a plain evaluation of the rules', async () => {
    expect(scoringRules).toHaveLength(4);
    const form = await createForm(t.app, owner, threeStepForm(schema, { name: 'scored' }));
    const answers = fc.record(
      {
        name: fc.constantFrom('VIP', 'vip', 'Ada', 'V I P'),
        email: fc.tuple(fc.constantFrom('ada', 'bo', 'x.y'), fc.constantFrom('corp.example', 'CORP.io', 'corporate.example', 'example.com')).map(([a, b]) => `${a}@${b}`),
        budget: fc.oneof(fc.integer({ min: -5000, max: 100_000 }), fc.constantFrom(999, 1000, 1001)),
        country: fc.constantFrom('NL', 'DE', 'FR', 'nl', ''),
      },
      { requiredKeys: ['name', 'email', 'budget'] },
    );
    await fc.assert(
      fc.asyncProperty(answers, async (a) => {
        const sent = Object.fromEntries(Object.entries(a).filter(([, v]) => v !== ''));
        const res = await submit(form.uuid, { answers: sent });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        const [row] = await t.platform.db.query<{ score: number; record_uuid: string }>('select score, record_uuid from rm_form_submissions where tenant = $1 and submission_uuid = $2', [owner.companyUuid, res.body.data.submissionUuid]);
        const record = await data(t.app, owner, 'GET', `/api/v2/records/${row!.record_uuid}`);
        expect(Number(row!.score)).toBe(plainScore(sent));
        expect(record.properties.score).toBe(plainScore(sent));
      }),
      { numRuns: 25 },
    );
  });
});
