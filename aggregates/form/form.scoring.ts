import type { ScoringRule } from './form.events.js';

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** Whether one rule matches an answer (a missing answer matches nothing). */
export function ruleMatches(rule: ScoringRule, answer: unknown): boolean {
  if (answer === undefined || answer === null) return false;
  switch (rule.operator) {
    case 'equals':
      return answer === rule.value;
    case 'contains':
      if (typeof answer === 'string') return answer.toLowerCase().includes(rule.value.toLowerCase());
      return Array.isArray(answer) && answer.some((a) => lower(a) === rule.value.toLowerCase());
    case 'oneOf':
      return Array.isArray(answer) ? answer.some((a) => rule.values.includes(a as never)) : rule.values.includes(answer as never);
    case 'between':
      return typeof answer === 'number' && Number.isFinite(answer) && (rule.min === null || answer >= rule.min) && (rule.max === null || answer <= rule.max);
  }
}

/** The lead score of the answers: the sum of the points of every rule that matches. */
export function scoreOf(rules: readonly ScoringRule[], answers: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const rule of rules) if (ruleMatches(rule, answers[rule.property])) total += rule.points;
  return total;
}
