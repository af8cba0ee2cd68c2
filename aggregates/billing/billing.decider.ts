import { invalid } from '../kernel/errors.js';
import type { Decider } from '../kernel/decider.js';
import type { BillingEvent, BillingStatus } from './billing.events.js';

export type BillingCommand = {
  type: 'SetBillingStatus';
  status: BillingStatus;
  trialEndsAt: number | null;
  reason: string;
  /** Set by the billing hook: its `webhook-id` and `webhook-timestamp` (ms). */
  hook: { webhookId: string; sentAt: number } | null;
};

export interface BillingState {
  status: BillingStatus;
  trialEndsAt: number | null;
  /** The hook deliveries applied (their `webhook-id`s, the latest last), bounded. */
  hookIds: readonly string[];
  lastHookAt: number | null;
}

/** How many applied hook ids the state remembers: a provider retries for days, not for thousands of changes. */
export const REMEMBERED_HOOK_IDS = 500;

/**
 * A company's billing status. A hook delivery already applied (same `webhook-id`) or older than the
 * last applied one changes nothing; a change to the same status and trial end changes nothing.
 */
export const billingDecider: Decider<BillingState, BillingCommand, BillingEvent> = {
  initialState: () => ({ status: 'ACTIVE', trialEndsAt: null, hookIds: [], lastHookAt: null }),
  decide(command, state) {
    if (command.status === 'TRIAL' && command.trialEndsAt === null) {
      throw invalid('trialEndsAt', 'a TRIAL needs trialEndsAt', 'Send trialEndsAt (epoch milliseconds) with status TRIAL', 'INVALID_DATE');
    }
    if (command.status !== 'TRIAL' && command.trialEndsAt !== null) {
      throw invalid('trialEndsAt', 'trialEndsAt is only for status TRIAL', 'Leave trialEndsAt out (or null) for this status');
    }
    if (command.reason.length > 500) throw invalid('reason', 'reason is longer than 500 characters', 'Shorten the reason');
    const { hook } = command;
    if (hook && (state.hookIds.includes(hook.webhookId) || (state.lastHookAt !== null && hook.sentAt < state.lastHookAt))) return [];
    if (command.status === state.status && command.trialEndsAt === state.trialEndsAt) return [];
    return [
      {
        type: 'BillingStatusChanged',
        version: 1,
        data: {
          status: command.status,
          trialEndsAt: command.trialEndsAt,
          reason: command.reason,
          source: hook ? 'hook' : 'admin',
          webhookId: hook?.webhookId ?? null,
          hookSentAt: hook?.sentAt ?? null,
        },
      },
    ];
  },
  evolve(state, event) {
    const d = event.data;
    return {
      status: d.status,
      trialEndsAt: d.trialEndsAt,
      hookIds: d.webhookId ? [...state.hookIds, d.webhookId].slice(-REMEMBERED_HOOK_IDS) : state.hookIds,
      lastHookAt: d.hookSentAt ?? state.lastHookAt,
    };
  },
};

/** What the edge enforces (docs/billing.md): an ended TRIAL is read only, like SUSPENDED. */
export function billingAccess(status: BillingStatus, trialEndsAt: number | null, now: number): 'full' | 'warn' | 'read-only' {
  if (status === 'SUSPENDED') return 'read-only';
  if (status === 'TRIAL') return trialEndsAt !== null && now >= trialEndsAt ? 'read-only' : 'full';
  return status === 'PAST_DUE' ? 'warn' : 'full';
}
