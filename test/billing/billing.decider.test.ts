import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { billingAccess, billingDecider, REMEMBERED_HOOK_IDS, type BillingCommand } from '../../aggregates/billing/billing.decider.js';
import { billingEventSchema, billingStatuses, type BillingEvent } from '../../aggregates/billing/billing.events.js';
import { given } from '../support/decider-spec.js';

const set = (status: BillingCommand['status'], o: Partial<BillingCommand> = {}): BillingCommand => ({ type: 'SetBillingStatus', status, trialEndsAt: null, reason: '', hook: null, ...o });
const changed = (status: BillingEvent['data']['status'], o: Partial<BillingEvent['data']> = {}): BillingEvent => ({
  type: 'BillingStatusChanged',
  version: 1,
  data: { status, trialEndsAt: null, reason: '', source: 'admin', webhookId: null, hookSentAt: null, ...o },
});
const spec = (history: BillingEvent[] = []) => given(billingDecider, history, { schema: billingEventSchema });

describe('billing decider', () => {
  it('a change is an event; the same status again is none', () => {
    spec().when(set('SUSPENDED', { reason: 'unpaid' })).then([changed('SUSPENDED', { reason: 'unpaid' })]);
    spec([changed('SUSPENDED')]).when(set('SUSPENDED')).then([]);
    spec().when(set('ACTIVE')).then([]);
  });

  it('a TRIAL needs its end; other statuses take none', () => {
    spec().when(set('TRIAL')).thenFails('VALIDATION_FAILED', 'trialEndsAt');
    spec().when(set('ACTIVE', { trialEndsAt: 5 })).thenFails('VALIDATION_FAILED', 'trialEndsAt');
    spec().when(set('TRIAL', { trialEndsAt: 5 })).then([changed('TRIAL', { trialEndsAt: 5 })]);
  });

  it('a hook delivery applies once, and an older one than the last applied changes nothing', () => {
    const hook = { webhookId: 'msg_1', sentAt: 1000 };
    const applied = changed('PAST_DUE', { source: 'hook', webhookId: 'msg_1', hookSentAt: 1000 });
    spec().when(set('PAST_DUE', { hook })).then([applied]);
    spec([applied, changed('ACTIVE')]).when(set('PAST_DUE', { hook })).then([]);
    spec([applied]).when(set('SUSPENDED', { hook: { webhookId: 'msg_0', sentAt: 999 } })).then([]);
  });

  it('law: replaying any applied hook delivery never changes the status', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...billingStatuses), fc.integer({ min: 0, max: 50 })), { minLength: 1, maxLength: 30 }), fc.nat(), (deliveries, pick) => {
        const history: BillingEvent[] = [];
        const applied: BillingCommand[] = [];
        for (const [i, [status, at]] of deliveries.entries()) {
          const command = set(status, { trialEndsAt: status === 'TRIAL' ? 1 : null, hook: { webhookId: `m${i}`, sentAt: at } });
          const out = spec(history).when(command).events();
          history.push(...out);
          if (out.length) applied.push(command);
        }
        if (applied.length === 0 || applied.length > REMEMBERED_HOOK_IDS) return;
        expect(spec(history).when(applied[pick % applied.length]!).events()).toEqual([]);
      }),
    );
  });

  it('an ended TRIAL and SUSPENDED are read only, PAST_DUE warns', () => {
    expect(billingAccess('TRIAL', 100, 99)).toBe('full');
    expect(billingAccess('TRIAL', 100, 100)).toBe('read-only');
    expect(billingAccess('SUSPENDED', null, 0)).toBe('read-only');
    expect(billingAccess('PAST_DUE', null, 0)).toBe('warn');
    expect(billingAccess('ACTIVE', null, 0)).toBe('full');
  });
});
