// The ship's side of the armory (spec POST /armory/sync, GET /armory): accept a push only from the pinned
// bridge, pull the manifest and only the files the cache lacks (presenting SVC_SHIP_TOKEN), verify every
// path and sha256 before a byte is written, and switch revision only when every file is in hand; then
// install. Syncs are serialized: concurrent pushes never interleave. At start the cached revision is
// installed again without waiting for the bridge.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Compile } from 'typebox/compile';
import {
  messageOf,
  armoryPathProblem,
  armorySectionOf,
  ArmoryFile,
  ArmoryManifest,
  NEVER_SYNCED,
  type ArmorySyncState,
} from '../../protocol/index.js';
import { WorkspaceError } from '../errors.js';
import { BridgePin } from './bridge-pin.js';
import { installArmory, type ManagedRecord } from './installer.js';
import { readJson, shipStateDirectory } from './ship-state-dir.js';
import { writeFileAtomicSync } from '../../server/atomic-file.js';

const checkManifest = Compile(ArmoryManifest);
const checkFile = Compile(ArmoryFile);
const PULL_TIMEOUT_MS = 30_000;

class PullFailed extends Error {}

interface SavedState {
  state: ArmorySyncState;
  manifest: ArmoryManifest | null;
}

export interface ArmorySyncOptions {
  home: string;
  fleetDirectory: string;
  /** `--bridge-url`: the only bridge allowed to push (none: the first that pushes). */
  pinnedBridgeUrl?: string;
  /** SVC_SHIP_TOKEN (or the exchanged pair's, which can change: read at each pull), presented on pulls. */
  shipToken?: string | (() => string | undefined);
  logger: Logger;
}

export class ArmorySync {
  private readonly directory: string;
  private readonly cache: string;
  private readonly pin: BridgePin;
  private saved: SavedState;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ArmorySyncOptions) {
    this.directory = shipStateDirectory(options.home, options.fleetDirectory);
    this.cache = join(this.directory, 'cache');
    this.pin = new BridgePin(this.directory, options.pinnedBridgeUrl);
    this.saved = readJson<SavedState>(join(this.directory, 'state.json')) ?? {
      state: { ...NEVER_SYNCED },
      manifest: null,
    };
  }

  state(): ArmorySyncState {
    return structuredClone(this.saved.state);
  }

  /** Installs the cached revision again (at start), in the queue like any sync. */
  reapply(): Promise<void> {
    return this.serialized(async () => {
      if (!this.saved.manifest) return;
      try {
        this.install(this.saved.manifest);
      } catch (error) {
        this.options.logger.warn({ err: messageOf(error) }, 'could not re-apply the cached armory');
      }
    });
  }

  sync(bridgeUrl: string, revisionHint: string): Promise<ArmorySyncState> {
    let parsed: URL;
    try {
      parsed = new URL(bridgeUrl);
    } catch {
      return Promise.reject(new WorkspaceError(400, `invalid bridge url: ${bridgeUrl}`));
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return Promise.reject(new WorkspaceError(400, `bridge url must be http(s): ${bridgeUrl}`));
    return this.serialized(async () => {
      const expected = this.pin.check(bridgeUrl);
      if (expected)
        throw new WorkspaceError(
          403,
          `armory push refused: this ship is pinned to bridge ${expected} but the push named ${bridgeUrl}`,
        );
      const base = bridgeUrl.replace(/\/+$/, '');
      let manifest: ArmoryManifest;
      try {
        manifest = await this.pull(base);
      } catch (error) {
        const message = messageOf(error);
        this.record({ lastError: message });
        throw new WorkspaceError(502, message);
      }
      this.record(
        {
          revision: manifest.revision,
          bridgeUrl,
          syncedAt: new Date().toISOString(),
          fileCount: manifest.entries.length,
          lastError: null,
        },
        manifest,
      );
      this.options.logger.info(
        { revision: manifest.revision, hint: revisionHint, files: manifest.entries.length },
        'armory synced',
      );
      try {
        this.install(manifest);
      } catch (error) {
        const message = `armory install failed: ${messageOf(error)}`;
        this.record({ lastError: message });
        throw new WorkspaceError(500, message);
      }
      return this.state();
    });
  }

  private async pull(base: string): Promise<ArmoryManifest> {
    const manifest = await this.fetchJson(`${base}/armory`, 'the armory manifest');
    if (!checkManifest.Check(manifest))
      throw new PullFailed('the bridge sent an armory manifest that does not validate');
    for (const entry of manifest.entries) {
      const problem = armoryPathProblem(entry.path);
      if (problem || armorySectionOf(entry.path) !== entry.section)
        throw new PullFailed(
          `unsafe path in the armory manifest (${problem ?? 'wrong section'}): ${JSON.stringify(entry.path)}`,
        );
    }
    for (const source of Object.keys(manifest.dotfileMap)) {
      const problem = armoryPathProblem(source);
      if (problem)
        throw new PullFailed(`unsafe dotfile source in the armory manifest (${problem}): ${JSON.stringify(source)}`);
    }
    // Content-addressed cache: only hashes not yet held are fetched; a failure leaves the old revision whole.
    for (const entry of manifest.entries) {
      const target = join(this.cache, entry.sha256);
      if (existsSync(target)) continue;
      const file = await this.fetchJson(
        `${base}/armory/file?path=${encodeURIComponent(entry.path)}`,
        `armory file ${entry.path}`,
      );
      if (!checkFile.Check(file) || file.path !== entry.path)
        throw new PullFailed(`the bridge sent armory file ${entry.path} in a shape that does not validate`);
      const bytes = Buffer.from(file.contents, file.encoding === 'base64' ? 'base64' : 'utf8');
      if (bytes.length !== entry.size || createHash('sha256').update(bytes).digest('hex') !== entry.sha256) {
        throw new PullFailed(`armory file ${entry.path} does not match its sha256`);
      }
      try {
        writeFileAtomicSync(target, bytes, 0o600);
      } catch (error) {
        throw new PullFailed(`could not cache armory file ${entry.path}: ${messageOf(error)}`);
      }
    }
    return manifest;
  }

  private async fetchJson(url: string, what: string): Promise<unknown> {
    const headers: Record<string, string> = {};
    const shipToken = typeof this.options.shipToken === 'function' ? this.options.shipToken() : this.options.shipToken;
    if (shipToken) headers.authorization = `Bearer ${shipToken}`;
    let response: Response;
    try {
      response = await fetch(url, { headers, redirect: 'error', signal: AbortSignal.timeout(PULL_TIMEOUT_MS) });
    } catch (error) {
      throw new PullFailed(`could not reach the bridge for ${what}: ${messageOf(error)}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new PullFailed(`bridge answered ${response.status} for ${what}`);
    }
    try {
      return await response.json();
    } catch {
      throw new PullFailed(`the bridge sent ${what} that is not JSON`);
    }
  }

  private install(manifest: ArmoryManifest): void {
    const recordFile = join(this.directory, 'managed.json');
    const previous = readJson<ManagedRecord>(recordFile) ?? {};
    const { install, record } = installArmory({
      manifest,
      cacheDirectory: this.cache,
      home: this.options.home,
      record: previous,
    });
    writeFileAtomicSync(recordFile, JSON.stringify(record, null, 1));
    this.record({ install, lastError: null });
  }

  /**
   * Updates the state, in memory first: a state file that cannot be written (a full disk) costs the next
   * start its memory of this sync, never this sync's answer or lastError.
   */
  private record(change: Partial<ArmorySyncState>, manifest?: ArmoryManifest): void {
    this.saved = { state: { ...this.saved.state, ...change }, manifest: manifest ?? this.saved.manifest };
    try {
      writeFileAtomicSync(join(this.directory, 'state.json'), JSON.stringify(this.saved));
    } catch (error) {
      this.options.logger.warn({ err: messageOf(error) }, 'could not save the armory state');
    }
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
