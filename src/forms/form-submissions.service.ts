import { createHash, randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../../aggregates/kernel/errors.js';
import { checkAnswers, type AnswerFacts, type Answers } from '../../aggregates/form/form.answers.js';
import type { PropertyDefinition } from '../../aggregates/property/property.schemas.js';
import { formSubmissionStream, type FormSettings, type InnerFormItem } from '../../aggregates/form/form.events.js';
import { formSubmissionDecider } from '../../aggregates/form/form-submission.decider.js';
import { scoreOf } from '../../aggregates/form/form.scoring.js';
import { recordLinkDecider } from '../../aggregates/relation/record-link.decider.js';
import { recordLinkStream } from '../../aggregates/relation/record-link.events.js';
import { submissionByUuid, type FormRow, type FormSubmissionRow } from '../../read-models/forms.queries.js';
import type { RelationRow } from '../../read-models/relations.queries.js';
import { handleCreations, newStreamWrite, type CommandContext, type NewStreamWrite } from '../commands/command-handler.js';
import type { Db } from '../db/db.js';
import { mapUniqueViolations } from '../db/unique-violation.js';
import type { EventStore } from '../event-store/port.js';
import type { RecordsService } from '../records/records.service.js';
import { cachedForm, cachedRelation } from './form-cache.js';

export interface Visitor {
  address: string;
  userAgent: string;
}

export interface Submitted {
  submissionUuid: string;
  /** False when the submission id had been received already (a double click): nothing new was created. */
  created: boolean;
  row: FormRow;
}

/** The submission uuid of a client's submission id: the same id for the same form is the same submission. */
const submissionUuidOf = (formUuid: string, clientId: string) => {
  const h = createHash('sha256').update(`${formUuid}\u0000${clientId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const refused = (message: string, suggestion: string) => new DomainError('VALIDATION_FAILED', message, [{ message, type: 'RELATION_NOT_ALLOWED', correctionSuggestion: suggestion }]);

/**
 * Public submissions (spec 4.5, 6.5): a published form of the company, the answers checked per
 * field and step, then one command that creates the record, the inner forms' records, their
 * connections and the FormSubmissionEvent, all or nothing (`handleCreations`).
 */
export function makeFormSubmissions(deps: { db: Db; store: EventStore; records: RecordsService }) {
  const { db, store, records } = deps;

  /** A published, live form of the company; anything else (unpublished, deleted, another company's) is the same 404. */
  async function published(tenant: string, formUuid: string): Promise<FormRow> {
    const row = await cachedForm(db, tenant, formUuid);
    if (!row || row.deleted_at !== null || !row.published) throw notFound('Form', formUuid);
    return row;
  }

  /**
   * The definitions the answers are checked against, from the records' object cache (the objects
   * a record create loads anyway): a submission reads no schema table.
   */
  async function answerFacts(tenant: string, settings: FormSettings): Promise<AnswerFacts> {
    const innerDefinitions: Record<string, readonly PropertyDefinition[]> = {};
    for (const item of settings.items) if (item.kind === 'innerForm') innerDefinitions[item.id] = (await records.objectNamed(tenant, item.objectName)).properties;
    return { definitions: (await records.objectNamed(tenant, settings.objectName)).properties, innerDefinitions };
  }

  async function relationFor(tenant: string, item: InnerFormItem) {
    const relation = await cachedRelation(db, tenant, item.relationUuid);
    if (!relation || relation.deleted_at !== null) throw refused(`inner.${item.id}: the form's relation no longer exists`, 'Ask the form owner to fix the form');
    return relation;
  }

  function linkWrite(item: InnerFormItem, relation: RelationRow, recordUuid: string, relatedUuid: string): NewStreamWrite {
    const [from, to] = item.side === 'origin' ? [recordUuid, relatedUuid] : [relatedUuid, recordUuid];
    return newStreamWrite(recordLinkDecider, recordLinkStream(item.relationUuid, from, to), {
      type: 'ConnectRecords', relationUuid: item.relationUuid, fromRecordUuid: from, toRecordUuid: to, edgeProperties: {}, edgeDefinitions: relation.edge_properties,
    });
  }

  return {
    published,

    /**
     * Checks the answers (only step `step` when given: nothing is created) or submits them. A
     * client submission id already received answers the first submission again.
     */
    async submit(ctx: CommandContext, formUuid: string, sent: Answers & { clientSubmissionId?: string }, visitor: Visitor, step?: number): Promise<Submitted | null> {
      const row = await published(ctx.tenant, formUuid);
      const settings = row.settings;
      // An object of the form that is gone: the visitor hears of the form only, not of its objects.
      const facts = await answerFacts(ctx.tenant, settings).catch((err: unknown) => {
        throw err instanceof DomainError && err.code === 'NOT_FOUND' ? notFound('Form', formUuid) : err;
      });
      if (step !== undefined && (step < 0 || step >= Math.max(1, settings.steps.length))) {
        throw new DomainError('VALIDATION_FAILED', `step ${step} does not exist`, [{ field: 'query.step', message: `query.step: the form has ${Math.max(1, settings.steps.length)} step(s)`, type: 'INVALID_VALUE', correctionSuggestion: 'Send a step from 0' }]);
      }
      const checked = checkAnswers(settings, facts, sent, step);
      if (step !== undefined) return null;

      const submissionUuid = sent.clientSubmissionId ? submissionUuidOf(formUuid, sent.clientSubmissionId) : randomUUID();
      if (sent.clientSubmissionId && (await submissionByUuid(db, ctx.tenant, submissionUuid))) return { submissionUuid, created: false, row };
      const values = { ...checked.values };
      const score = settings.scoring ? scoreOf(settings.scoring.rules, checked.values) : null;
      if (settings.scoring) values[settings.scoring.property] = score;
      const main = await records.creation(ctx.tenant, settings.objectName, { properties: values });
      const writes: NewStreamWrite[] = [main.write];
      const related: { itemId: string; recordUuid: string; objectName: string; relationUuid: string }[] = [];
      for (const { item, entries } of checked.inner) {
        const relation = entries.length > 0 ? await relationFor(ctx.tenant, item) : null;
        for (const entry of entries) {
          const created = await records.creation(ctx.tenant, item.objectName, { properties: entry });
          writes.push(created.write, linkWrite(item, relation!, main.uuid, created.uuid));
          related.push({ itemId: item.id, recordUuid: created.uuid, objectName: item.objectName, relationUuid: item.relationUuid });
        }
      }
      const submission = newStreamWrite(formSubmissionDecider, formSubmissionStream(submissionUuid), {
        type: 'SubmitForm', submissionUuid, formUuid, formRevision: Number(row.revision), objectName: settings.objectName, recordUuid: main.uuid, related,
        recordUuids: [main.uuid, ...related.map((r) => r.recordUuid)], score, visitor,
      });
      const tooMany = () => {
        throw refused('inner: more entries than the relation\'s cardinality allows', 'Send fewer inner-form entries');
      };
      try {
        await mapUniqueViolations(() => handleCreations({ store, context: ctx, writes: [submission, ...writes] }), {
          record_unique_pkey: () => {
            throw refused('answers: a value the form\'s object keeps unique is already taken', 'Change the unique value and submit again');
          },
          rm_record_links_one_per_from: tooMany,
          rm_record_links_one_per_to: tooMany,
        });
      } catch (err) {
        // The same client id at once from two requests: the first one's submission is the answer.
        if (err instanceof DomainError && err.code === 'WRONG_EXPECTED_REVISION' && sent.clientSubmissionId && (await submissionByUuid(db, ctx.tenant, submissionUuid))) {
          return { submissionUuid, created: false, row };
        }
        throw err;
      }
      return { submissionUuid, created: true, row };
    },

    submissionOf: (tenant: string, submissionUuid: string): Promise<FormSubmissionRow | null> => submissionByUuid(db, tenant, submissionUuid),
  };
}
export type FormSubmissions = ReturnType<typeof makeFormSubmissions>;
