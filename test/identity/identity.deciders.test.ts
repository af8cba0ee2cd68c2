import { describe, expect, it } from 'vitest';
import { given } from '../support/decider-spec.js';
import { userDecider } from '../../aggregates/user/user.decider.js';
import { userEventSchema } from '../../aggregates/user/user.events.js';
import { companyDecider } from '../../aggregates/company/company.decider.js';
import { companyEventSchema } from '../../aggregates/company/company.events.js';
import { membershipDecider } from '../../aggregates/membership/membership.decider.js';
import { membershipEventSchema, type MembershipEvent } from '../../aggregates/membership/membership.events.js';
import { teamDecider } from '../../aggregates/team/team.decider.js';
import { teamEventSchema, type TeamEvent } from '../../aggregates/team/team.events.js';
import { missingGrants } from '../../src/auth/authorize.js';

const U = '00000000-0000-4000-8000-000000000001';
const C = '00000000-0000-4000-8000-000000000002';
const R = '00000000-0000-4000-8000-000000000003';

describe('user decider', () => {
  const registered = { type: 'UserRegistered', version: 1, data: { userUuid: U, email: 'ann@example.test', firstname: 'Ann', lastname: 'Lee' } } as const;
  it('registers with a normalised e-mail, once', () => {
    given(userDecider, [], { schema: userEventSchema }).when({ type: 'RegisterUser', userUuid: U, email: ' Ann@Example.TEST ', firstname: ' Ann', lastname: 'Lee ' }).then([registered]);
    given(userDecider, [registered], { schema: userEventSchema }).when({ type: 'RegisterUser', userUuid: U, email: 'x@y.z', firstname: 'a', lastname: 'b' }).thenFails('CONFLICT');
    given(userDecider, [], { schema: userEventSchema }).when({ type: 'RegisterUser', userUuid: U, email: 'not-an-email', firstname: 'a', lastname: 'b' }).thenFails('VALIDATION_FAILED');
  });
  it('verifies once; selecting the same company twice is one event', () => {
    const verified = { type: 'UserEmailVerified', version: 1, data: { email: 'ann@example.test' } } as const;
    given(userDecider, [registered], { schema: userEventSchema }).when({ type: 'VerifyUserEmail' }).then([verified]);
    given(userDecider, [registered, verified], { schema: userEventSchema }).when({ type: 'VerifyUserEmail' }).then([]);
    const selected = { type: 'UserCompanySelected', version: 1, data: { companyUuid: C } } as const;
    given(userDecider, [registered, selected], { schema: userEventSchema }).when({ type: 'SelectCompany', companyUuid: C }).then([]);
    given(userDecider, [], { schema: userEventSchema }).when({ type: 'ChangeUserPassword', reason: 'reset' }).thenFails('NOT_FOUND');
  });
});

describe('company decider', () => {
  const create = { type: 'CreateCompany', companyUuid: C, name: 'Acme', subdomain: 'Acme', createdBy: U, managedBy: null, copiedFrom: null, settings: {} } as const;
  it('creates with a lowercase subdomain; refuses reserved and malformed ones', () => {
    const [created] = given(companyDecider, [], { schema: companyEventSchema }).when(create).events();
    expect(created!.data).toMatchObject({ subdomain: 'acme', name: 'Acme' });
    for (const subdomain of ['www', 'a', 'a_b', '-ab', 'ab-']) given(companyDecider, [], { schema: companyEventSchema }).when({ ...create, subdomain }).thenFails('VALIDATION_FAILED');
  });
  it('an update that changes nothing decides nothing', () => {
    const history = given(companyDecider, [], { schema: companyEventSchema }).when(create).events();
    given(companyDecider, history, { schema: companyEventSchema }).when({ type: 'UpdateCompany', name: 'Acme', subdomain: 'ACME' }).then([]);
    given(companyDecider, history, { schema: companyEventSchema }).when({ type: 'UpdateCompany', name: 'Acme 2' }).then([{ type: 'CompanyUpdated', version: 1, data: { name: 'Acme 2' } }]);
  });
});

describe('membership decider', () => {
  const added: MembershipEvent = { type: 'MemberAdded', version: 1, data: { userUuid: U, role: 'ADMIN', scopes: [] } };
  it('adds once, changes, removes, and keeps the last ADMIN', () => {
    given(membershipDecider, [added], { schema: membershipEventSchema }).when({ type: 'AddMember', userUuid: U, role: 'USER', scopes: [] }).thenFails('CONFLICT');
    given(membershipDecider, [added], { schema: membershipEventSchema }).when({ type: 'ChangeMember', role: 'USER', otherAdmins: 0 }).thenFails('STATE_NOT_ALLOWED');
    given(membershipDecider, [added], { schema: membershipEventSchema }).when({ type: 'RemoveMember', otherAdmins: 0 }).thenFails('STATE_NOT_ALLOWED');
    expect(given(membershipDecider, [added], { schema: membershipEventSchema }).when({ type: 'ChangeMember', role: 'USER', otherAdmins: 1 }).events()).toEqual([
      { type: 'MemberChanged', version: 1, data: { userUuid: U, role: 'USER', scopes: [] } },
    ]);
    given(membershipDecider, [added], { schema: membershipEventSchema }).when({ type: 'ChangeMember', scopes: [], otherAdmins: 0 }).then([]);
    const removed: MembershipEvent = { type: 'MemberRemoved', version: 1, data: { userUuid: U } };
    given(membershipDecider, [added, removed], { schema: membershipEventSchema }).when({ type: 'RemoveMember', otherAdmins: 1 }).thenFails('NOT_FOUND');
    expect(given(membershipDecider, [added, removed], { schema: membershipEventSchema }).when({ type: 'AddMember', userUuid: U, role: 'USER', scopes: ['a:b', 'a:b'] }).events()).toEqual([
      { type: 'MemberAdded', version: 1, data: { userUuid: U, role: 'USER', scopes: ['a:b'] } },
    ]);
  });
});

describe('team decider', () => {
  const created: TeamEvent = { type: 'TeamCreated', version: 1, data: { teamUuid: C, name: 'Ops', description: '', scopes: [] } };
  it('members must belong to the company; assignments are idempotent; a deleted team takes nothing', () => {
    given(teamDecider, [created], { schema: teamEventSchema }).when({ type: 'AddTeamMember', userUuid: U, isCompanyMember: false }).thenFails('NOT_FOUND');
    const joined = given(teamDecider, [created], { schema: teamEventSchema }).when({ type: 'AddTeamMember', userUuid: U, isCompanyMember: true }).events();
    given(teamDecider, [created, ...joined], { schema: teamEventSchema }).when({ type: 'AddTeamMember', userUuid: U, isCompanyMember: true }).then([]);
    const assigned = given(teamDecider, [created], { schema: teamEventSchema }).when({ type: 'AssignTeamRecord', recordUuid: R }).events();
    given(teamDecider, [created, ...assigned], { schema: teamEventSchema }).when({ type: 'AssignTeamRecord', recordUuid: R }).then([]);
    given(teamDecider, [created], { schema: teamEventSchema }).when({ type: 'UnassignTeamRecord', recordUuid: R }).thenFails('NOT_FOUND');
    const deleted: TeamEvent = { type: 'TeamDeleted', version: 1, data: { teamUuid: C } };
    given(teamDecider, [created, deleted], { schema: teamEventSchema }).when({ type: 'UpdateTeam', name: 'x' }).thenFails('NOT_FOUND');
    given(teamDecider, [created, deleted], { schema: teamEventSchema }).when({ type: 'DeleteTeam' }).thenFails('NOT_FOUND');
  });
});

describe('missingGrants', () => {
  const actor = (role: 'USER' | 'ADMIN' | 'RESELLER' | 'DEVELOPER' | null, scopes: string[] = [], superAdmin = false) => ({ role, scopes, superAdmin });
  it('lists the roles when none of them is held, and the scopes not held', () => {
    expect(missingGrants({ roles: ['ADMIN', 'DEVELOPER'], scopes: ['a:b', 'c:d'] }, actor('USER', ['c:d']))).toEqual({ roles: ['ADMIN', 'DEVELOPER'], scopes: ['a:b'] });
    expect(missingGrants({ roles: ['ADMIN', 'DEVELOPER'], scopes: ['a:b'] }, actor('DEVELOPER', ['a:b']))).toEqual({ roles: [], scopes: [] });
    expect(missingGrants({ scopes: ['a:b'] }, actor('RESELLER'))).toEqual({ roles: [], scopes: ['a:b'] });
    expect(missingGrants({}, actor(null))).toEqual({ roles: ['USER', 'ADMIN', 'RESELLER', 'DEVELOPER'], scopes: [] });
  });
  it('ADMIN holds every scope; SUPER_ADMIN passes everything', () => {
    expect(missingGrants({ roles: ['USER', 'ADMIN'], scopes: ['a:b'] }, actor('ADMIN'))).toEqual({ roles: [], scopes: [] });
    expect(missingGrants({ roles: ['DEVELOPER'], scopes: ['a:b'] }, actor('ADMIN'))).toEqual({ roles: ['DEVELOPER'], scopes: [] });
    expect(missingGrants({ roles: ['RESELLER'], scopes: ['x:y'] }, actor(null, [], true))).toEqual({ roles: [], scopes: [] });
  });
});
