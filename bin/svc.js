#!/usr/bin/env node
// Entry point of the `svc` command: runs the compiled CLI (npm ci builds it through `prepare`).
import('../dist/cli/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('svc: the CLI is not built; run `npm ci` (or `npm run build`) in the checkout first\n');
  } else {
    process.stderr.write(`svc: ${err?.stack ? err.stack : err}\n`);
  }
  process.exit(1);
});
