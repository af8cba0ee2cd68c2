import { describe, expect, it } from 'vitest';
import { aPage, call, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite();

// PGlite has one connection, so its rounds mostly serialise; ordering is tested on PostgreSQL.
const ROUNDS = process.env.DATABASE_URL ? 200 : 5;

describe('concurrent editors', () => {
  it(`16 patches with the same expectedRevision: exactly one succeeds, 15 get 409, the history gains one entry (${ROUNDS} rounds)`, async () => {
    const { record } = await aPage(cms.app, cms.owner, cms.site);
    const historyTotal = async () => (await call(cms.app, cms.owner, 'POST', `/api/v2/webpages/v2/pages/${record.uuid}/history/index?locale=en`, { page: 0, limit: 1 })).body.total as number;
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          call(cms.app, cms.owner, 'POST', patchUrl(record.uuid), { locale: 'en', expectedRevision: round, patches: [{ op: 'addModule', index: 0, module: { id: `r${round}-w${i}`, module: 'text', fields: { writer: i } } }] }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, `round ${round}: ${JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.body))}`).toEqual([200, ...Array(15).fill(409)]);
      const winner = answers.find((a) => a.status === 200)!;
      expect(winner.body.data.document.revision).toBe(round + 1);
      for (const loser of answers.filter((a) => a.status === 409)) expect(loser.body.message).toMatch(new RegExp(`revision ${round + 1}`));
      expect(await historyTotal()).toBe(round + 2);
    }
    const page = (await call(cms.app, cms.owner, 'GET', `/api/v2/webpages/v2/pages/${record.uuid}?locale=en`)).body.data;
    expect(page.document.revision).toBe(ROUNDS);
    expect(page.document.modules).toHaveLength(ROUNDS);
  });
});
