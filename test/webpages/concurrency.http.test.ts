import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpWithCompany, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { aPage, aSite, call, patchUrl } from './cms-fixtures.js';

let t: TestApp;
let owner: TestTenant;
let site: Awaited<ReturnType<typeof aSite>>;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
  owner = await signUpWithCompany(t.app);
  site = await aSite(t.app, owner);
});
afterAll(async () => t.close());

// PGlite has one connection, so its rounds mostly serialise; ordering is tested on PostgreSQL.
const ROUNDS = process.env.DATABASE_URL ? 200 : 5;

describe('concurrent editors', () => {
  it(`16 patches with the same expectedRevision: exactly one succeeds, 15 get 409, the history gains one entry (${ROUNDS} rounds)`, async () => {
    const { record } = await aPage(t.app, owner, site);
    const historyTotal = async () => (await call(t.app, owner, 'POST', `/api/v2/webpages/v2/pages/${record.uuid}/history/index?locale=en`, { page: 0, limit: 1 })).body.total as number;
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          call(t.app, owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: round, patches: [{ op: 'addModule', index: 0, module: { id: `r${round}-w${i}`, module: 'text', fields: { writer: i } } }] }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, `round ${round}: ${JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.body))}`).toEqual([200, ...Array(15).fill(409)]);
      const winner = answers.find((a) => a.status === 200)!;
      expect(winner.body.data.document.revision).toBe(round + 1);
      for (const loser of answers.filter((a) => a.status === 409)) expect(loser.body.message).toMatch(new RegExp(`revision ${round + 1}`));
      expect(await historyTotal()).toBe(round + 2);
    }
    const page = (await call(t.app, owner, 'GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`)).body.data;
    expect(page.document.revision).toBe(ROUNDS);
    expect(page.document.modules).toHaveLength(ROUNDS);
  });
});
