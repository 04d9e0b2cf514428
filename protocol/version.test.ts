import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SVC_VERSION } from './version.js';

it('is the version package.json declares', () => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
  expect(SVC_VERSION).toBe(pkg.version);
});
