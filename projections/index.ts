import type { Projection } from './projection.js';

/** Every read model of the platform, in the order they apply. */
export const projections: readonly Projection[] = [];
