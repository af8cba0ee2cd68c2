import { DomainError, invalid } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { CompanySettings } from './company-settings.js';
import type { CompanyEvent } from './company.events.js';

export type CompanyCommand =
  | {
      type: 'CreateCompany';
      companyUuid: string;
      name: string;
      subdomain: string;
      createdBy: string;
      managedBy: string | null;
      copiedFrom: string | null;
      settings: CompanySettings;
    }
  | { type: 'UpdateCompany'; name?: string; subdomain?: string }
  | { type: 'UpdateCompanySettings'; settings: CompanySettings };

export interface CompanyState {
  exists: boolean;
  name: string;
  subdomain: string;
}

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;
/** Names the platform keeps for itself. */
export const reservedSubdomains = new Set(['www', 'api', 'app', 'admin', 'mail', 'smtp', 'static', 'assets', 'cdn', 'docs', 'status', 'dev', 'platform', 'support', 'help']);

export function checkSubdomain(raw: string): string {
  const subdomain = raw.trim().toLowerCase();
  if (!SUBDOMAIN.test(subdomain) || subdomain.includes('--')) {
    throw invalid('subdomain', `subdomain "${raw}" is not valid`, 'Use 3 to 63 lowercase letters, digits and single hyphens, not starting or ending with a hyphen', 'INVALID_VALUE');
  }
  if (reservedSubdomains.has(subdomain)) throw invalid('subdomain', `subdomain "${subdomain}" is reserved`, 'Choose another subdomain', 'INVALID_VALUE');
  return subdomain;
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid('name', 'name must have 1 to 200 characters', 'Send a company name', 'INVALID_VALUE');
  return name;
}

function mustExist(state: CompanyState) {
  if (!state.exists) throw new DomainError('NOT_FOUND', 'company not found', [{ message: 'The company does not exist', type: 'NOT_FOUND', correctionSuggestion: 'Check the company uuid' }]);
}

export const companyDecider: Decider<CompanyState, CompanyCommand, CompanyEvent> = {
  initialState: () => ({ exists: false, name: '', subdomain: '' }),
  decide(command, state) {
    switch (command.type) {
      case 'CreateCompany': {
        if (state.exists) throw new DomainError('CONFLICT', 'company already exists', [{ message: 'A company with this uuid exists', type: 'GENERAL', correctionSuggestion: 'Use a new uuid' }]);
        const { companyUuid, createdBy, managedBy, copiedFrom, settings } = command;
        return [{ type: 'CompanyCreated', version: 1, data: { companyUuid, name: checkName(command.name), subdomain: checkSubdomain(command.subdomain), createdBy, managedBy, copiedFrom, settings } }];
      }
      case 'UpdateCompany': {
        mustExist(state);
        const data: { name?: string; subdomain?: string } = {};
        if (command.name !== undefined && checkName(command.name) !== state.name) data.name = checkName(command.name);
        if (command.subdomain !== undefined && checkSubdomain(command.subdomain) !== state.subdomain) data.subdomain = checkSubdomain(command.subdomain);
        return Object.keys(data).length === 0 ? [] : [{ type: 'CompanyUpdated', version: 1, data }];
      }
      case 'UpdateCompanySettings':
        mustExist(state);
        return Object.keys(command.settings).length === 0 ? [] : [{ type: 'CompanySettingsUpdated', version: 1, data: { settings: command.settings } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CompanyCreated':
        return { exists: true, name: event.data.name, subdomain: event.data.subdomain };
      case 'CompanyUpdated':
        return { ...state, name: event.data.name ?? state.name, subdomain: event.data.subdomain ?? state.subdomain };
      case 'CompanySettingsUpdated':
        return state;
    }
  },
};
