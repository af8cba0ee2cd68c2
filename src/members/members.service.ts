import { invalid, notFound } from '../../aggregates/kernel/errors.js';
import { membershipDecider, type MembershipCommand } from '../../aggregates/membership/membership.decider.js';
import { membershipStream } from '../../aggregates/membership/membership.events.js';
import type { CompanyRole } from '../../aggregates/membership/roles.js';
import { memberOf, membersOf, otherAdminCount, type MemberRow } from '../../read-models/memberships.queries.js';
import { userByEmail, userByUuid } from '../../read-models/users.queries.js';
import type { CompanyActor } from '../auth/actor.js';
import { handleCommand } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import type { CompaniesService } from '../companies/companies.service.js';

/** Memberships of a company: the one in the path, which must be the selected one (any, for SUPER_ADMIN), else 404. */
export function makeMembersService(deps: { db: Db; store: EventStore; companies: CompaniesService }) {
  const { db, store } = deps;

  const onMembership = (actor: CompanyActor, tenant: string, userUuid: string, requestId: string, command: (otherAdmins: number) => MembershipCommand) =>
    otherAdminCount(db, tenant, userUuid).then((others) =>
      handleCommand({
        store,
        decider: membershipDecider,
        streamId: membershipStream(userUuid),
        command: command(others),
        context: { tenant, userUuid: actor.userUuid, requestId, now: Date.now() },
      }),
    );

  async function existing(tenant: string, userUuid: string): Promise<MemberRow> {
    const row = await memberOf(db, tenant, userUuid);
    if (!row) throw notFound('Member', userUuid);
    return row;
  }

  /** The company of the path, once the actor may see it: it is the tenant of what follows. */
  const tenantOf = async (actor: CompanyActor, company: string) => (await deps.companies.visible(actor, company)).company_uuid;

  return {
    async add(actor: CompanyActor, company: string, input: { userUuid?: string; email?: string; role: CompanyRole; scopes: string[] }, requestId: string) {
      const tenant = await tenantOf(actor, company);
      if (!input.userUuid && !input.email) throw invalid('body.userUuid', 'userUuid or email is required', 'Name the user to add by userUuid or by email');
      const user = input.userUuid ? await userByUuid(db, input.userUuid) : await userByEmail(db, input.email!);
      if (!user) throw notFound('User', input.userUuid ?? input.email!);
      await onMembership(actor, tenant, user.user_uuid, requestId, () => ({ type: 'AddMember', userUuid: user.user_uuid, role: input.role, scopes: input.scopes }));
      return existing(tenant, user.user_uuid);
    },

    async list(actor: CompanyActor, company: string, limit: number, offset: number) {
      return membersOf(db, await tenantOf(actor, company), limit, offset);
    },

    async change(actor: CompanyActor, company: string, userUuid: string, patch: { role?: CompanyRole; scopes?: string[] }, requestId: string) {
      const tenant = await tenantOf(actor, company);
      await existing(tenant, userUuid);
      await onMembership(actor, tenant, userUuid, requestId, (otherAdmins) => ({ type: 'ChangeMember', ...patch, otherAdmins }));
      return existing(tenant, userUuid);
    },

    async remove(actor: CompanyActor, company: string, userUuid: string, requestId: string) {
      const tenant = await tenantOf(actor, company);
      await existing(tenant, userUuid);
      await onMembership(actor, tenant, userUuid, requestId, (otherAdmins) => ({ type: 'RemoveMember', otherAdmins }));
    },
  };
}
export type MembersService = ReturnType<typeof makeMembersService>;
