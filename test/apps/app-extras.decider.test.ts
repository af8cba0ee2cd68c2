import { describe, it } from 'vitest';
import { appDecider } from '../../aggregates/app/app.decider.js';
import { appEventSchema, type AppEvent } from '../../aggregates/app/app.events.js';
import { given } from '../support/decider-spec.js';

const A = '00000000-0000-4000-8000-0000000000a1';
const B1 = '00000000-0000-4000-8000-0000000000b1';
const B2 = '00000000-0000-4000-8000-0000000000b2';
const schema = { schema: appEventSchema };
const created: AppEvent = { type: 'AppCreated', version: 1, data: { appUuid: A, visibility: 'PUBLIC', label: 'Shop', description: '' } };
const requested = (buildId: string): AppEvent => ({ type: 'AppMigrationToV2Requested', version: 1, data: { runtime: 'node22', buildId } });
const pkg = { key: `apps/${A}/packages/ab.tar`, sha256: 'ab', size: 10, files: 1, gzipped: false };
const module = (name: string) => ({ name, label: name, description: '', fields: [] });

describe('app decider: migrate-v2 (spec 4.17)', () => {
  it('asks for one known runtime; refused while a rebuild runs and once on version 2; a failed build can be asked again', () => {
    given(appDecider, [created], schema).when({ type: 'MigrateToV2', runtime: 'node22', buildId: B1 }).then([requested(B1)]);
    given(appDecider, [created], schema).when({ type: 'MigrateToV2', runtime: 'php5', buildId: B1 }).thenFails('VALIDATION_FAILED', 'runtime');
    given(appDecider, [created, requested(B1)], schema).when({ type: 'MigrateToV2', runtime: 'node22', buildId: B2 }).thenFails('STATE_NOT_ALLOWED', 'rebuild is running');
    const built: AppEvent = { type: 'AppRuntimeBuilt', version: 1, data: { buildId: B1, runtime: 'node22' } };
    given(appDecider, [created, requested(B1), built], schema).when({ type: 'MigrateToV2', runtime: 'node22', buildId: B2 }).thenFails('STATE_NOT_ALLOWED', 'version 2 already');
    const failed: AppEvent = { type: 'AppRuntimeBuildFailed', version: 1, data: { buildId: B1, reasons: ['x'] } };
    given(appDecider, [created, requested(B1), failed], schema).when({ type: 'MigrateToV2', runtime: 'node22', buildId: B2 }).then([requested(B2)]);
    given(appDecider, [], schema).when({ type: 'MigrateToV2', runtime: 'node22', buildId: B1 }).thenFails('NOT_FOUND');
  });

  it('the rebuild outcome: READY without reasons, FAILED with them; an outcome for another or a finished build decides nothing', () => {
    given(appDecider, [created, requested(B1)], schema).when({ type: 'CompleteRuntimeBuild', buildId: B1, reasons: [] }).then([{ type: 'AppRuntimeBuilt', version: 1, data: { buildId: B1, runtime: 'node22' } }]);
    given(appDecider, [created, requested(B1)], schema).when({ type: 'CompleteRuntimeBuild', buildId: B1, reasons: ['no webhookUrl'] }).then([{ type: 'AppRuntimeBuildFailed', version: 1, data: { buildId: B1, reasons: ['no webhookUrl'] } }]);
    given(appDecider, [created, requested(B1)], schema).when({ type: 'CompleteRuntimeBuild', buildId: B2, reasons: [] }).then([]);
    given(appDecider, [created, requested(B1), { type: 'AppRuntimeBuilt' as const, version: 1 as const, data: { buildId: B1, runtime: 'node22' as const } }], schema).when({ type: 'CompleteRuntimeBuild', buildId: B1, reasons: [] }).then([]);
    given(appDecider, [created], schema).when({ type: 'CompleteRuntimeBuild', buildId: B1, reasons: [] }).then([]);
  });
});

describe('app decider: CMS module packages (spec 4.12)', () => {
  it('publishes the package and replaces the catalog in one decision; duplicate names refuse both', () => {
    given(appDecider, [created], schema)
      .when({ type: 'PublishCmsPackage', package: pkg, modules: [module('hero')] })
      .then([{ type: 'AppCmsPackagePublished', version: 1, data: pkg }, { type: 'AppCmsModulesReplaced', version: 1, data: { modules: [module('hero')], retired: [] } }]);
    given(appDecider, [created], schema).when({ type: 'PublishCmsPackage', package: pkg, modules: [module('a'), module('a')] }).thenFails('VALIDATION_FAILED', 'twice');
  });
});
