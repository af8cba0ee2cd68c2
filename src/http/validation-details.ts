import type { ErrorDetail, ErrorType } from '../../aggregates/kernel/errors.js';

interface Issue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function typeFor(issue: Issue): ErrorType {
  const format = issue.params?.format;
  if (format === 'email') return 'INVALID_EMAIL';
  if (format === 'date' || format === 'datetime' || format === 'date-time') return 'INVALID_DATE';
  if (issue.keyword === 'invalid_value' || issue.keyword === 'invalid_type' || issue.keyword === 'too_big' || issue.keyword === 'too_small')
    return 'INVALID_VALUE';
  return 'VALIDATION';
}

function suggestionFor(field: string, issue: Issue): string {
  const p = issue.params ?? {};
  switch (issue.keyword) {
    case 'invalid_type':
      return /received undefined/.test(issue.message ?? '') ? `Provide ${field} (${String(p.expected)})` : `Send ${field} as ${String(p.expected)}`;
    case 'too_big':
      return `Keep ${field} at most ${String(p.maximum)}`;
    case 'too_small':
      return `Make ${field} at least ${String(p.minimum)}`;
    case 'invalid_value':
      return `Use one of: ${(p.values as unknown[] | undefined)?.map(String).join(', ') ?? 'the allowed values'}`;
    case 'unrecognized_keys':
      return `Remove the unknown field(s): ${(p.keys as string[] | undefined)?.join(', ') ?? ''}`;
    case 'invalid_format':
      return `Send ${field} in ${String(p.format ?? 'the expected')} format`;
    default:
      return `Correct ${field} and retry`;
  }
}

/** Turns schema-validation issues into error-body details, one per field. */
export function validationDetails(issues: Issue[], context: string): ErrorDetail[] {
  return issues.map((issue) => {
    const path = (issue.instancePath ?? '').split('/').filter(Boolean).join('.');
    const field = path ? `${context}.${path}` : context;
    return {
      message: `${field}: ${issue.message ?? 'is invalid'}`,
      type: typeFor(issue),
      correctionSuggestion: suggestionFor(field, issue),
      field,
    };
  });
}
