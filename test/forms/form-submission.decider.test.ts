import { describe, it } from 'vitest';
import { formSubmissionDecider, type SubmitForm } from '../../aggregates/form/form-submission.decider.js';
import { formSubmissionEventSchema, type FormSubmissionEvent } from '../../aggregates/form/form.events.js';
import { given } from '../support/decider-spec.js';

const S = '00000000-0000-4000-8000-0000000000b1';
const data: FormSubmissionEvent['data'] = {
  submissionUuid: S,
  formUuid: '00000000-0000-4000-8000-0000000000b2',
  formRevision: 3,
  objectName: 'lead',
  recordUuid: '00000000-0000-4000-8000-0000000000b3',
  related: [{ itemId: 'contacts', recordUuid: '00000000-0000-4000-8000-0000000000b4', objectName: 'contact', relationUuid: '00000000-0000-4000-8000-0000000000b5' }],
  recordUuids: ['00000000-0000-4000-8000-0000000000b3', '00000000-0000-4000-8000-0000000000b4'],
  score: 7,
  visitor: { address: '192.0.2.0', userAgent: 'test' },
};
const submit: SubmitForm = { type: 'SubmitForm', ...data };
const schema = { schema: formSubmissionEventSchema };
const received: FormSubmissionEvent = { type: 'FormSubmissionEvent', version: 1, data };

describe('form submission decider', () => {
  it('records a submission as it came, once: a second one of the same id (a double click) is a conflict', () => {
    given(formSubmissionDecider, [], schema).when(submit).then([received]);
    given(formSubmissionDecider, [received], schema).when(submit).thenFails('CONFLICT', S);
  });
});
