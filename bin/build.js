#!/usr/bin/env node
// Builds what `svc` runs (tsc for the servers, CLI and benchmarks; vite for the GUI) so that a build never
// rewrites what running services load, and does nothing when the build is current (docs/DECISIONS.md,
// "How is dist/ built?"):
// - The build inputs (sources, configs, lockfile, this script) are hashed. When `dist/.build-stamp` holds the
//   same hash, there is nothing to do: `npm ci`'s prepare, the first `npx svc` from a new home directory
//   (npm links the checkout into that home's npx cache and runs prepare again) and `npm test` return at once.
// - Otherwise the build is written beside the old one, into `.dist-<hash>` (a temporary name first, renamed
//   when complete), and `dist` becomes a symlink to it by one rename over the old link: a process already
//   running keeps the build it started from (Node loads modules by their real path), and one starting now
//   gets the whole new build. Two builds at once each write their own directory; the last rename wins.
// - The builds neither current nor just replaced are removed (a process still running from one of those
//   would lose its lazily loaded modules; two generations are kept for that).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SOURCES = ['protocol', 'server', 'ship', 'bridge', 'cli', 'bench', 'operator', 'web'];
const ROOT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'bin/build.js'];
const STAMP = '.build-stamp';
const BUILD_PREFIX = '.dist-';
const PGLITE_TEMPLATE = 'pglite-template';

/** Every file a build reads, skipping tests (tsc and vite leave them out) and anything generated. */
function inputs() {
  const files = [...ROOT_FILES];
  const walk = (directory) => {
    for (const entry of readdirSync(join(ROOT, directory), { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (!/\.test\.tsx?$/.test(entry.name)) {
        files.push(path);
      }
    }
  };
  for (const directory of SOURCES) walk(directory);
  return files.sort();
}

function inputHash() {
  const hash = createHash('sha256');
  for (const file of inputs())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 20);
}

function currentStamp() {
  try {
    return readFileSync(join(ROOT, 'dist', STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

function spawnChecked(command, args) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(
      `build step failed: ${[command, ...args]
        .map((arg) => relative(ROOT, arg) || arg)
        .join(' ')
        .slice(0, 200)}`,
    );
}

const run = (script, args) => spawnChecked(process.execPath, [script, ...args]);

function build(hash) {
  const final = join(ROOT, `${BUILD_PREFIX}${hash}`);
  if (readStamp(final) === hash) return final;
  const scratch = join(ROOT, `${BUILD_PREFIX}${hash}.tmp-${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  const require = createRequire(join(ROOT, 'package.json'));
  try {
    run(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.json', '--outDir', scratch]);
    run(join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'), [
      'build',
      '--config',
      'web/vite.config.ts',
      '--outDir',
      join(scratch, 'web'),
      '--emptyOutDir',
    ]);
    // The embedded store's data directory with the bridge's schema and no rows, made once here by the build's
    // own store code: a bridge on a new data directory copies it (bridge/store/database.ts) instead of
    // running PGlite's initdb (seconds of WebAssembly) and the migrations on every start.
    const store = (module) => JSON.stringify(pathToFileURL(join(scratch, 'bridge', 'store', module)).href);
    const makeTemplate =
      `const [{ pgliteDatabase }, { migrate }] = await Promise.all([import(${store('database.js')}), import(${store('migrations.js')})]);` +
      'const db = await pgliteDatabase(process.argv[1]); await migrate(db); await db.close();';
    spawnChecked(process.execPath, ['--input-type=module', '-e', makeTemplate, join(scratch, PGLITE_TEMPLATE)]);
    writeFileSync(join(scratch, STAMP), `${hash}\n`);
    try {
      renameSync(scratch, final);
    } catch (error) {
      // A build of the same inputs finished first: use it.
      if (readStamp(final) !== hash) throw error;
      rmSync(scratch, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return final;
}

function readStamp(directory) {
  try {
    return readFileSync(join(directory, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

/** Points `dist` at `target` with one rename; returns the build it pointed at before (or null). */
function swapIn(target) {
  const dist = join(ROOT, 'dist');
  const stats = lstatSync(dist, { throwIfNoEntry: false });
  let previous = null;
  if (stats?.isSymbolicLink()) previous = join(ROOT, readlinkSync(dist));
  else if (stats) {
    // A dist/ directory of an older layout: moved aside once, and pruned like any old build.
    previous = join(ROOT, `${BUILD_PREFIX}legacy-${process.pid}`);
    renameSync(dist, previous);
  }
  const link = join(ROOT, `${BUILD_PREFIX}link-${process.pid}`);
  rmSync(link, { force: true });
  symlinkSync(relative(ROOT, target), link);
  renameSync(link, dist);
  return previous;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Removes every build but `keep`, and scratch directories of builds no longer running. */
function prune(keep) {
  for (const name of readdirSync(ROOT)) {
    if (!name.startsWith(BUILD_PREFIX) || keep.has(join(ROOT, name))) continue;
    const owner = /\.tmp-(\d+)$|^\.dist-link-(\d+)$/.exec(name);
    if (owner && alive(Number(owner[1] ?? owner[2]))) continue;
    rmSync(join(ROOT, name), { recursive: true, force: true });
  }
}

const hash = inputHash();
if (currentStamp() === hash && existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
  process.exit(0);
}
const target = build(hash);
const previous = swapIn(target);
prune(new Set([target, ...(previous ? [previous] : [])]));
process.stderr.write(`svc: built ${relative(ROOT, target)} (dist → ${relative(ROOT, target)})\n`);
