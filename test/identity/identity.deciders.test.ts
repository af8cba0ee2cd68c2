import { describe, expect, it } from 'vitest';
import { fold } from '../../aggregates/kernel/decider.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import type { DomainEvent } from '../../aggregates/kernel/events.js';
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

/** given events, when command: the events decided, each valid against its zod schema. */
function given<S, Cmd, E extends DomainEvent>(decider: { initialState: () => S; evolve: (s: S, e: E) => S; decide: (c: Cmd, s: S) => E[] }, schema: { parse: (x: unknown) => unknown }, history: E[]) {
  const state = fold(decider, history);
  return {
    when: (command: Cmd) => {
      const events = decider.decide(command, state);
      for (const e of events) schema.parse(e);
      return events;
    },
    fails: (command: Cmd) => {
      try {
        decider.decide(command, state);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        return (err as DomainError).code;
      }
      throw new Error('expected a DomainError');
    },
  };
}

describe('user decider', () => {
  const registered = { type: 'UserRegistered', version: 1, data: { userUuid: U, email: 'ann@example.test', firstname: 'Ann', lastname: 'Lee' } } as const;
  it('registers with a normalised e-mail, once', () => {
    expect(given(userDecider, userEventSchema, []).when({ type: 'RegisterUser', userUuid: U, email: ' Ann@Example.TEST ', firstname: ' Ann', lastname: 'Lee ' })).toEqual([registered]);
    expect(given(userDecider, userEventSchema, [registered]).fails({ type: 'RegisterUser', userUuid: U, email: 'x@y.z', firstname: 'a', lastname: 'b' })).toBe('CONFLICT');
    expect(given(userDecider, userEventSchema, []).fails({ type: 'RegisterUser', userUuid: U, email: 'not-an-email', firstname: 'a', lastname: 'b' })).toBe('VALIDATION_FAILED');
  });
  it('verifies once; selecting the same company twice is one event', () => {
    const verified = { type: 'UserEmailVerified', version: 1, data: { email: 'ann@example.test' } } as const;
    expect(given(userDecider, userEventSchema, [registered]).when({ type: 'VerifyUserEmail' })).toEqual([verified]);
    expect(given(userDecider, userEventSchema, [registered, verified]).when({ type: 'VerifyUserEmail' })).toEqual([]);
    const selected = { type: 'UserCompanySelected', version: 1, data: { companyUuid: C } } as const;
    expect(given(userDecider, userEventSchema, [registered, selected]).when({ type: 'SelectCompany', companyUuid: C })).toEqual([]);
    expect(given(userDecider, userEventSchema, []).fails({ type: 'ChangeUserPassword', reason: 'reset' })).toBe('NOT_FOUND');
  });
});

describe('company decider', () => {
  const create = { type: 'CreateCompany', companyUuid: C, name: 'Acme', subdomain: 'Acme', createdBy: U, managedBy: null, copiedFrom: null, settings: {} } as const;
  it('creates with a lowercase subdomain; refuses reserved and malformed ones', () => {
    const [created] = given(companyDecider, companyEventSchema, []).when(create);
    expect(created!.data).toMatchObject({ subdomain: 'acme', name: 'Acme' });
    for (const subdomain of ['www', 'a', 'a_b', '-ab', 'ab-']) expect(given(companyDecider, companyEventSchema, []).fails({ ...create, subdomain })).toBe('VALIDATION_FAILED');
  });
  it('an update that changes nothing decides nothing', () => {
    const history = given(companyDecider, companyEventSchema, []).when(create);
    expect(given(companyDecider, companyEventSchema, history).when({ type: 'UpdateCompany', name: 'Acme', subdomain: 'ACME' })).toEqual([]);
    expect(given(companyDecider, companyEventSchema, history).when({ type: 'UpdateCompany', name: 'Acme 2' })).toEqual([{ type: 'CompanyUpdated', version: 1, data: { name: 'Acme 2' } }]);
  });
});

describe('membership decider', () => {
  const added: MembershipEvent = { type: 'MemberAdded', version: 1, data: { userUuid: U, role: 'ADMIN', scopes: [] } };
  it('adds once, changes, removes, and keeps the last ADMIN', () => {
    expect(given(membershipDecider, membershipEventSchema, [added]).fails({ type: 'AddMember', userUuid: U, role: 'USER', scopes: [] })).toBe('CONFLICT');
    expect(given(membershipDecider, membershipEventSchema, [added]).fails({ type: 'ChangeMember', role: 'USER', otherAdmins: 0 })).toBe('STATE_NOT_ALLOWED');
    expect(given(membershipDecider, membershipEventSchema, [added]).fails({ type: 'RemoveMember', otherAdmins: 0 })).toBe('STATE_NOT_ALLOWED');
    expect(given(membershipDecider, membershipEventSchema, [added]).when({ type: 'ChangeMember', role: 'USER', otherAdmins: 1 })).toEqual([
      { type: 'MemberChanged', version: 1, data: { userUuid: U, role: 'USER', scopes: [] } },
    ]);
    expect(given(membershipDecider, membershipEventSchema, [added]).when({ type: 'ChangeMember', scopes: [], otherAdmins: 0 })).toEqual([]);
    const removed: MembershipEvent = { type: 'MemberRemoved', version: 1, data: { userUuid: U } };
    expect(given(membershipDecider, membershipEventSchema, [added, removed]).fails({ type: 'RemoveMember', otherAdmins: 1 })).toBe('NOT_FOUND');
    expect(given(membershipDecider, membershipEventSchema, [added, removed]).when({ type: 'AddMember', userUuid: U, role: 'USER', scopes: ['a:b', 'a:b'] })).toEqual([
      { type: 'MemberAdded', version: 1, data: { userUuid: U, role: 'USER', scopes: ['a:b'] } },
    ]);
  });
});

describe('team decider', () => {
  const created: TeamEvent = { type: 'TeamCreated', version: 1, data: { teamUuid: C, name: 'Ops', description: '', scopes: [] } };
  it('members must belong to the company; assignments are idempotent; a deleted team takes nothing', () => {
    expect(given(teamDecider, teamEventSchema, [created]).fails({ type: 'AddTeamMember', userUuid: U, isCompanyMember: false })).toBe('NOT_FOUND');
    const joined = given(teamDecider, teamEventSchema, [created]).when({ type: 'AddTeamMember', userUuid: U, isCompanyMember: true });
    expect(given(teamDecider, teamEventSchema, [created, ...joined]).when({ type: 'AddTeamMember', userUuid: U, isCompanyMember: true })).toEqual([]);
    const assigned = given(teamDecider, teamEventSchema, [created]).when({ type: 'AssignTeamRecord', recordUuid: R });
    expect(given(teamDecider, teamEventSchema, [created, ...assigned]).when({ type: 'AssignTeamRecord', recordUuid: R })).toEqual([]);
    expect(given(teamDecider, teamEventSchema, [created]).fails({ type: 'UnassignTeamRecord', recordUuid: R })).toBe('NOT_FOUND');
    const deleted: TeamEvent = { type: 'TeamDeleted', version: 1, data: { teamUuid: C } };
    expect(given(teamDecider, teamEventSchema, [created, deleted]).fails({ type: 'UpdateTeam', name: 'x' })).toBe('NOT_FOUND');
    expect(given(teamDecider, teamEventSchema, [created, deleted]).fails({ type: 'DeleteTeam' })).toBe('NOT_FOUND');
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
