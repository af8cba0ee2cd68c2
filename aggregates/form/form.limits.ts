/** The sizes a form and a submission may have (docs/forms.md). */
export const formLimits = {
  columns: 12,
  rows: 200,
  items: 200,
  steps: 20,
  innerFields: 50,
  /** Entries of one inner form in one submission, at most (a form may ask fewer). */
  innerEntries: 20,
  defaultInnerEntries: 5,
  scoringRules: 100,
} as const;
