import { indexCacheSuite } from './index-cache.suite.js';

indexCacheSuite('filtered lists from the in-process index (object-store.ts)', {});
