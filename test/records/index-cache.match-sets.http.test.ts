import { indexCacheSuite } from './index-cache.suite.js';

indexCacheSuite('filtered lists from match sets and kept results (index-cache.ts)', { INDEX_STORE_CELLS: '0' });
