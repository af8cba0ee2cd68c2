/** The bench object's properties and deterministic record values (no randomness: runs compare). */

export const statuses = ['active', 'active', 'active', 'won', 'lost'] as const;

export const benchProperties = [
  { name: 'name', label: 'Name', type: 'string', format: 'text', required: true },
  { name: 'email', label: 'E-mail', type: 'string', format: 'email' },
  { name: 'status', label: 'Status', type: 'string', format: 'select', options: ['active', 'won', 'lost'].map((v) => ({ value: v, label: v })) },
  { name: 'amount', label: 'Amount', type: 'number', format: 'currency' },
  { name: 'due', label: 'Due', type: 'date', format: 'date' },
  { name: 'description', label: 'Description', type: 'string', format: 'textarea' },
];

const syllables = ['ka', 'lo', 'mi', 'ra', 'te', 'su', 'vo', 'ne', 'pi', 'da', 'ge', 'ru'];
const nouns = ['Holdings', 'Trading', 'Labs', 'Partners', 'Works', 'Studio', 'Foods', 'Motors'];

/** A mixing hash: deterministic pseudo-random integers from an index. */
export function mix(i: number): number {
  let x = (i + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** One of 1,728 three-syllable words. */
export function syllableWord(i: number): string {
  const h = mix(i * 7 + 1);
  return syllables[h % 12]! + syllables[(h >>> 4) % 12]! + syllables[(h >>> 8) % 12]!;
}

export function benchRecord(i: number): Record<string, unknown> {
  const h = mix(i);
  const word = syllableWord(i);
  const day = h % 2000;
  const due = new Date(Date.UTC(2022, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return {
    name: `${word[0]!.toUpperCase()}${word.slice(1)} ${nouns[(h >>> 12) % nouns.length]} ${i}`,
    email: `contact${i}@${word}.example`,
    status: statuses[(h >>> 16) % statuses.length],
    amount: ((h >>> 8) % 1_000_000) / 100,
    due,
    description: `Deal ${i} with ${word} about ${syllableWord(i + 1)} and ${syllableWord(i + 2)}`,
  };
}
