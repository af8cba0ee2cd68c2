/** The object of `npm run bench:compare`: ten properties, deterministic values (runs compare). */
import { benchProperties, benchRecord, mix } from './records.data.js';

const cities = ['Lisbon', 'Porto', 'Braga', 'Faro', 'Evora', 'Coimbra', 'Aveiro', 'Leiria'];

export const compareProperties = [
  ...benchProperties,
  { name: 'phone', label: 'Phone', type: 'string', format: 'phone' },
  { name: 'city', label: 'City', type: 'string', format: 'text' },
  { name: 'priority', label: 'Priority', type: 'number', format: 'number' },
  { name: 'hot', label: 'Hot', type: 'boolean', format: 'checkbox' },
];

export function compareRecord(i: number): Record<string, unknown> {
  const h = mix(i + 17);
  return {
    ...benchRecord(i),
    phone: `+351 2${String(h % 100_000_000).padStart(8, '0')}`,
    city: cities[h % cities.length],
    priority: (h >>> 5) % 5,
    hot: (h & 1) === 1,
  };
}
