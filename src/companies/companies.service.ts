import { randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { companyDecider, checkSubdomain, type CompanyCommand } from '../../aggregates/company/company.decider.js';
import { companyStream } from '../../aggregates/company/company.events.js';
import type { CompanySettings } from '../../aggregates/company/company-settings.js';
import { membershipDecider } from '../../aggregates/membership/membership.decider.js';
import { membershipStream } from '../../aggregates/membership/membership.events.js';
import { allCompanies, companiesOfMember, companyBySubdomain, companyOf, type CompanyRow } from '../../read-models/companies.queries.js';
import type { Actor } from '../auth/actor.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';

const subdomainTaken = (subdomain: string) =>
  new DomainError('CONFLICT', `Subdomain ${subdomain} is taken`, [
    { message: `Another company uses the subdomain ${subdomain}`, type: 'INVALID_VALUE', correctionSuggestion: 'Choose another subdomain' },
  ]);

export interface NewCompany {
  name: string;
  subdomain: string;
  managedBy?: string | null;
  copiedFrom?: string | null;
  settings?: CompanySettings;
}

export function makeCompaniesService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;
  const contextFor = (tenant: string, actor: Actor, requestId: string): CommandContext => ({ tenant, userUuid: actor.userUuid, requestId, now: Date.now() });

  async function onCompany(tenant: string, actor: Actor, requestId: string, command: CompanyCommand) {
    return mapUniqueViolations(() => handleCommand({ store, decider: companyDecider, streamId: companyStream(tenant), command, context: contextFor(tenant, actor, requestId) }), {
      companies_subdomain_unique: () => {
        throw subdomainTaken('requested');
      },
    });
  }

  /**
   * The company `uuid` as the actor may see it: its own selected company, any for SUPER_ADMIN, or
   * one its reseller company manages. Anything else is the same 404 as a uuid that does not exist.
   */
  async function visible(actor: Actor, uuid: string, opts: { managed?: boolean } = {}): Promise<CompanyRow> {
    const row = await companyOf(db, uuid);
    const managed = opts.managed && actor.role === 'RESELLER' && row?.managed_by === actor.tenant;
    if (!row || !(uuid === actor.tenant || actor.superAdmin || managed)) throw notFound('Company', uuid);
    return row;
  }

  return {
    visible,

    /** Creates a company; the creator becomes its ADMIN. */
    async create(actor: Actor, input: NewCompany, requestId: string): Promise<CompanyRow> {
      const subdomain = checkSubdomain(input.subdomain);
      if (await companyBySubdomain(db, subdomain)) throw subdomainTaken(subdomain);
      const companyUuid = randomUUID();
      await onCompany(companyUuid, actor, requestId, {
        type: 'CreateCompany',
        companyUuid,
        name: input.name,
        subdomain,
        createdBy: actor.userUuid,
        managedBy: input.managedBy ?? null,
        copiedFrom: input.copiedFrom ?? null,
        settings: input.settings ?? {},
      });
      await handleCommand({
        store,
        decider: membershipDecider,
        streamId: membershipStream(actor.userUuid),
        command: { type: 'AddMember', userUuid: actor.userUuid, role: 'ADMIN', scopes: [] },
        context: contextFor(companyUuid, actor, requestId),
      });
      return (await companyOf(db, companyUuid))!;
    },

    /** The actor's own companies; every company for SUPER_ADMIN. */
    list(actor: Actor, limit: number, offset: number) {
      return actor.superAdmin ? allCompanies(db, limit, offset) : companiesOfMember(db, actor.userUuid, limit, offset);
    },

    async update(actor: Actor, uuid: string, patch: { name?: string; subdomain?: string }, requestId: string): Promise<CompanyRow> {
      await visible(actor, uuid);
      if (patch.subdomain !== undefined) {
        const wanted = checkSubdomain(patch.subdomain);
        const holder = await companyBySubdomain(db, wanted);
        if (holder && holder.company_uuid !== uuid) throw subdomainTaken(wanted);
      }
      await onCompany(uuid, actor, requestId, { type: 'UpdateCompany', ...patch });
      return (await companyOf(db, uuid))!;
    },

    async updateSettings(actor: Actor, uuid: string, settings: CompanySettings, requestId: string): Promise<CompanyRow> {
      await visible(actor, uuid);
      await onCompany(uuid, actor, requestId, { type: 'UpdateCompanySettings', settings });
      return (await companyOf(db, uuid))!;
    },
  };
}
export type CompaniesService = ReturnType<typeof makeCompaniesService>;
