// Builds the GUI (web/) into dist/web, served by the bridge at /ui/ (bridge/http/gui.ts). Hashed file names
// under assets/ (cached for a year by the bridge), no inline script or style (the bridge's CSP forbids
// them), no data: URIs (img-src 'self'). JSX is compiled by Vite's own transformer; no plugin needed.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/ui/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
    // A loaded 2-core machine makes any build "slow": no timing warnings in `npm ci`'s output.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
