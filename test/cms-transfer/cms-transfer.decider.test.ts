import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cmsTransferDecider, type CmsTransferCommand } from '../../aggregates/cms-transfer/cms-transfer.decider.js';
import { cmsTransferEventSchema, type CmsTransferEvent } from '../../aggregates/cms-transfer/cms-transfer.events.js';
import { DomainError } from '../../aggregates/kernel/errors.js';
import { fold } from '../../aggregates/kernel/decider.js';
import { given } from '../support/decider-spec.js';

const T = '00000000-0000-4000-8000-000000000001';
const project = { projectId: 'p', name: 'p', repository: 'https://git.example.test/p', schema: 'p', previewHostname: null };
const live = { hostname: 'www.example.test', schema: 'p', repository: 'https://git.example.test/p' };
const v1 = { hostname: 'www.example.test', subdomain: 'acme' };
const schema = { schema: cmsTransferEventSchema };
const attached: CmsTransferEvent = { type: 'CmsTransferAttached', version: 1, data: { transferUuid: T, project } };
const cutOver: CmsTransferEvent = { type: 'CmsTransferCutOver', version: 1, data: { transferUuid: T, live, v1 } };
const rolledBack: CmsTransferEvent = { type: 'CmsTransferRolledBack', version: 1, data: { transferUuid: T, hostname: live.hostname, v1, reason: '' } };

describe('CMS transfer decider', () => {
  it('allows attach, cutover and rollback in their states, and refuses the others with STATE_NOT_ALLOWED', () => {
    given(cmsTransferDecider, [], schema).when({ type: 'AttachProject', transferUuid: T, project }).then([attached]);
    given(cmsTransferDecider, [], schema).when({ type: 'CutOver', live, v1 }).thenFails('STATE_NOT_ALLOWED', 'No v2 web project');
    given(cmsTransferDecider, [], schema).when({ type: 'RollBack', reason: '' }).thenFails('STATE_NOT_ALLOWED');
    given(cmsTransferDecider, [attached], schema).when({ type: 'CutOver', live, v1 }).then([cutOver]);
    given(cmsTransferDecider, [attached], schema).when({ type: 'RollBack', reason: '' }).thenFails('STATE_NOT_ALLOWED');
    given(cmsTransferDecider, [attached, cutOver], schema).when({ type: 'AttachProject', transferUuid: T, project }).thenFails('STATE_NOT_ALLOWED', 'Roll back');
    given(cmsTransferDecider, [attached, cutOver], schema).when({ type: 'CutOver', live: { ...live, hostname: 'other.example.test' }, v1 }).thenFails('STATE_NOT_ALLOWED');
    given(cmsTransferDecider, [attached, cutOver], schema).when({ type: 'RollBack', reason: '' }).then([rolledBack]);
    given(cmsTransferDecider, [attached, cutOver, rolledBack], schema).when({ type: 'CutOver', live, v1 }).then([cutOver]);
  });

  it('decides nothing for a repeat of the transition just made (same input)', () => {
    given(cmsTransferDecider, [attached]).when({ type: 'AttachProject', transferUuid: 'another', project: { ...project } }).then([]);
    given(cmsTransferDecider, [attached, cutOver]).when({ type: 'CutOver', live: { ...live }, v1 }).then([]);
    given(cmsTransferDecider, [attached, cutOver, rolledBack]).when({ type: 'RollBack', reason: 'again' }).then([]);
  });

  it('law: after any accepted command, the same command again decides no event', () => {
    const command = fc.constantFrom<CmsTransferCommand>(
      { type: 'AttachProject', transferUuid: T, project },
      { type: 'AttachProject', transferUuid: T, project: { ...project, projectId: 'q' } },
      { type: 'CutOver', live, v1 },
      { type: 'CutOver', live: { ...live, hostname: 'b.example.test' }, v1 },
      { type: 'RollBack', reason: '' },
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 12 }), (commands) => {
        const history: CmsTransferEvent[] = [];
        for (const c of commands) {
          let decided: CmsTransferEvent[];
          try {
            decided = cmsTransferDecider.decide(c, fold(cmsTransferDecider, history));
          } catch (err) {
            expect(err).toBeInstanceOf(DomainError);
            expect((err as DomainError).code).toBe('STATE_NOT_ALLOWED');
            continue;
          }
          history.push(...decided);
          expect(cmsTransferDecider.decide(c, fold(cmsTransferDecider, history))).toEqual([]);
        }
      }),
    );
  });
});
