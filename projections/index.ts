import type { Projection } from './projection.js';
import { usersProjection } from './users.projection.js';
import { companiesProjection } from './companies.projection.js';
import { membershipsProjection } from './memberships.projection.js';
import { teamsProjection } from './teams.projection.js';

/** Every read model of the platform, in the order they apply. */
export const projections: readonly Projection[] = [usersProjection, companiesProjection, membershipsProjection, teamsProjection];
