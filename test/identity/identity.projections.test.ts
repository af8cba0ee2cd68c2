import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decider } from '../../aggregates/kernel/decider.js';
import type { DomainEvent } from '../../aggregates/kernel/events.js';
import { userDecider } from '../../aggregates/user/user.decider.js';
import { PLATFORM_TENANT, userStream } from '../../aggregates/user/user.events.js';
import { companyDecider } from '../../aggregates/company/company.decider.js';
import { companyStream } from '../../aggregates/company/company.events.js';
import { membershipDecider } from '../../aggregates/membership/membership.decider.js';
import { membershipStream } from '../../aggregates/membership/membership.events.js';
import { teamDecider } from '../../aggregates/team/team.decider.js';
import { teamStream } from '../../aggregates/team/team.events.js';
import { projections } from '../../projections/index.js';
import { handleCommand } from '../../src/commands/command-handler.js';
import type { Db } from '../../src/db/db.js';
import type { EventStore } from '../../src/event-store/port.js';
import { createPostgresEventStore } from '../../src/event-store/postgres.store.js';
import { applyProjections } from '../../src/projections/apply.js';
import { onPostgres, openTestDb } from '../support/test-db.js';

let db: Db;
let store: EventStore;
beforeAll(async () => {
  db = await openTestDb();
  store = await createPostgresEventStore({ db, projections });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const tables = ['users', 'companies', 'memberships', 'teams', 'team_members', 'team_records'];
async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) out[table] = await db.query(`select * from ${table} order by 1, 2`);
  return out;
}

let now = 1_700_000_000_000;
function run<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, tenant: string, streamId: string, command: C) {
  return handleCommand({ store, decider, streamId, command, context: { tenant, userUuid: null, requestId: randomUUID(), now: (now += 1000) } });
}

describe(`identity projections on ${onPostgres ? 'PostgreSQL' : 'PGlite'}`, () => {
  it('are idempotent, and a rebuild from the log gives the live rows', async () => {
    const [u1, u2, company, team, record] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await run(userDecider, PLATFORM_TENANT, userStream(u1), { type: 'RegisterUser', userUuid: u1, email: `${u1}@example.test`, firstname: 'A', lastname: 'B' });
    await run(userDecider, PLATFORM_TENANT, userStream(u2), { type: 'RegisterUser', userUuid: u2, email: `${u2}@example.test`, firstname: 'C', lastname: 'D' });
    await run(userDecider, PLATFORM_TENANT, userStream(u1), { type: 'VerifyUserEmail' });
    await run(userDecider, PLATFORM_TENANT, userStream(u1), { type: 'SelectCompany', companyUuid: company });
    await run(companyDecider, company, companyStream(company), { type: 'CreateCompany', companyUuid: company, name: 'Co', subdomain: `co-${u1.slice(0, 8)}`, createdBy: u1, managedBy: null, copiedFrom: null, settings: { website: 'https://co.example' } });
    await run(companyDecider, company, companyStream(company), { type: 'UpdateCompanySettings', settings: { logo: 'logo.png' } });
    await run(companyDecider, company, companyStream(company), { type: 'UpdateCompany', name: 'Co Two' });
    await run(membershipDecider, company, membershipStream(u1), { type: 'AddMember', userUuid: u1, role: 'ADMIN', scopes: [] });
    await run(membershipDecider, company, membershipStream(u2), { type: 'AddMember', userUuid: u2, role: 'USER', scopes: ['members:read'] });
    await run(membershipDecider, company, membershipStream(u2), { type: 'RemoveMember', otherAdmins: 1 });
    await run(membershipDecider, company, membershipStream(u2), { type: 'AddMember', userUuid: u2, role: 'DEVELOPER', scopes: [] });
    await run(teamDecider, company, teamStream(team), { type: 'CreateTeam', teamUuid: team, name: 'T', description: '', scopes: ['teams:write'] });
    await run(teamDecider, company, teamStream(team), { type: 'AddTeamMember', userUuid: u1, isCompanyMember: true });
    await run(teamDecider, company, teamStream(team), { type: 'AddTeamMember', userUuid: u2, isCompanyMember: true });
    await run(teamDecider, company, teamStream(team), { type: 'RemoveTeamMember', userUuid: u1 });
    await run(teamDecider, company, teamStream(team), { type: 'AssignTeamRecord', recordUuid: record });
    await run(teamDecider, company, teamStream(team), { type: 'UpdateTeam', name: 'T2', scopes: [] });

    const live = await snapshot();
    expect(live.users).toHaveLength(2);
    expect(live.companies).toEqual([expect.objectContaining({ name: 'Co Two', settings: { website: 'https://co.example', logo: 'logo.png' }, revision: 2 })]);
    expect(live.memberships).toEqual(expect.arrayContaining([expect.objectContaining({ user_uuid: u2, role: 'DEVELOPER', active: true, revision: 2 })]));
    expect(live.team_members).toEqual([expect.objectContaining({ user_uuid: u2 })]);
    expect(live.teams).toEqual([expect.objectContaining({ name: 'T2', scopes: [], revision: 5 })]);

    // The streams' events in log order. (Not readAll: on a shared PostgreSQL another database's
    // long transaction holds the global log's horizon back; the rebuild itself is tested elsewhere.)
    const streams: [string, string][] = [
      [PLATFORM_TENANT, userStream(u1)],
      [PLATFORM_TENANT, userStream(u2)],
      [company, companyStream(company)],
      [company, membershipStream(u1)],
      [company, membershipStream(u2)],
      [company, teamStream(team)],
    ];
    const log = (await Promise.all(streams.map(([tenant, id]) => store.readStream(tenant, id)))).flat().sort((a, b) => a.position - b.position);
    expect(log).toHaveLength(17);

    // Every event applied a second time changes nothing.
    await db.transaction((tx) => applyProjections(projections, log, tx));
    expect(await snapshot()).toEqual(live);

    // Replaying the log into empty read models gives the same rows.
    await db.query(`truncate ${tables.join(', ')}`);
    await db.transaction((tx) => applyProjections(projections, log, tx));
    expect(await snapshot()).toEqual(live);
  });
});
