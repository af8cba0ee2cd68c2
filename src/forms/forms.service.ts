import { randomUUID } from 'node:crypto';
import { notFound } from '../../aggregates/kernel/errors.js';
import { formDecider, type FormCommand, type FormInput } from '../../aggregates/form/form.decider.js';
import { formStream, type FormSettings } from '../../aggregates/form/form.events.js';
import { fold } from '../../aggregates/kernel/decider.js';
import type { FormEvent } from '../../aggregates/form/form.events.js';
import { formByUuid, listForms, listSubmissions, submissionByUuid, type FormRow, type FormSubmissionRow } from '../../read-models/forms.queries.js';
import { handleCommand, type CommandContext } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import type { EventStore } from '../event-store/port.js';
import { formFactsFor } from './form-facts.js';

/**
 * Form definitions of the selected company (spec 4.5). Writes take the command context first,
 * reads the tenant first. Another company's form is the same 404 as a missing one.
 */
export function makeFormsService(deps: { db: Db; store: EventStore }) {
  const { db, store } = deps;

  /** The form, live (or deleted with `deleted: true`; either with `deleted: 'either'`), else 404. */
  async function found(tenant: string, formUuid: string, opts: { deleted?: boolean | 'either' } = {}): Promise<FormRow> {
    const row = await formByUuid(db, tenant, formUuid);
    if (!row || (opts.deleted !== 'either' && (row.deleted_at !== null) !== (opts.deleted ?? false))) throw notFound('Form', formUuid);
    return row;
  }

  const run = (context: CommandContext, formUuid: string, command: FormCommand) =>
    handleCommand({ store, decider: formDecider, streamId: formStream(formUuid), command, context });

  return {
    found: (tenant: string, formUuid: string) => found(tenant, formUuid),

    async create(context: CommandContext, input: FormInput): Promise<FormRow> {
      const formUuid = randomUUID();
      await run(context, formUuid, { type: 'CreateForm', formUuid, input, facts: await formFactsFor(db, context.tenant, input, null) });
      return found(context.tenant, formUuid);
    },

    list: (tenant: string, o: { deleted: boolean; objectUuid?: string; query?: string; limit: number; offset: number }) => listForms(db, tenant, o),

    async update(context: CommandContext, formUuid: string, input: FormInput): Promise<FormRow> {
      const base = await found(context.tenant, formUuid);
      await run(context, formUuid, { type: 'UpdateForm', input, facts: await formFactsFor(db, context.tenant, input, base.settings) });
      return found(context.tenant, formUuid);
    },

    async remove(context: CommandContext, formUuid: string): Promise<FormRow> {
      await found(context.tenant, formUuid);
      await run(context, formUuid, { type: 'DeleteForm' });
      return found(context.tenant, formUuid, { deleted: true });
    },

    async restore(context: CommandContext, formUuid: string): Promise<FormRow> {
      // A live form is the decider's 409 (STATE_NOT_ALLOWED), as for records and saved filters.
      await found(context.tenant, formUuid, { deleted: 'either' });
      await run(context, formUuid, { type: 'RestoreForm' });
      return found(context.tenant, formUuid);
    },

    /** The settings the form had at `revision`, folded from its stream (a submission names its form's revision). */
    async settingsAt(tenant: string, formUuid: string, revision: number): Promise<FormSettings | null> {
      const events = await store.readStream(tenant, formStream(formUuid), { fromRevision: 0, maxCount: revision + 1 });
      return fold(formDecider, events.map((e) => ({ type: e.type, version: e.version, data: e.data }) as FormEvent)).settings;
    },

    async submissions(tenant: string, formUuid: string, o: { limit: number; offset: number }) {
      await found(tenant, formUuid);
      return listSubmissions(db, tenant, formUuid, o);
    },

    async submission(tenant: string, formUuid: string, submissionUuid: string): Promise<FormSubmissionRow> {
      await found(tenant, formUuid);
      const row = await submissionByUuid(db, tenant, submissionUuid);
      if (!row || row.form_uuid !== formUuid) throw notFound('Submission', submissionUuid);
      return row;
    },
  };
}
export type FormsService = ReturnType<typeof makeFormsService>;
