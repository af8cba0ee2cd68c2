#!/usr/bin/env node
// The `platform` command (package.json `bin`): the CLI as built into dist/ by `npm run build`.
await import('../dist/cli/main.js');
