// The bridge's armory: `<dataDirectory>/armory/`, read-only through the API and edited on the bridge host.
// Keeps the last scan until the directory changes (a recursive watcher; a burst of writes such as a `git
// pull` collapses into one rescan after 500 ms of quiet) and tells its listener the new revision. Files
// are served only while they are still the regular file that was scanned (same device and inode, same hash).
import { mkdirSync, readFileSync, lstatSync, watch, type FSWatcher } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ARMORY_FILE_LIMIT,
  armoryPathProblem,
  type ArmoryFile,
  type ArmoryManifest,
  messageOf,
} from '../../protocol/index.js';
import { BridgeError } from '../errors.js';
import { scanArmory, type ArmoryScan } from './scanner.js';

const DEBOUNCE_MS = 500;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class Armory {
  private scan: Promise<ArmoryScan> | null = null;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private lastRevision: string | null = null;

  constructor(
    readonly root: string,
    private readonly logger: Logger,
  ) {}

  /** Starts watching; `onChange` gets each new revision (not called when a rescan finds the same one). */
  watch(onChange: (revision: string) => void): void {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    void this.current().then(
      (scan) => (this.lastRevision = scan.manifest.revision),
      () => undefined,
    );
    try {
      this.watcher = watch(this.root, { recursive: true }, () => {
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => void this.rescan(onChange), DEBOUNCE_MS);
      });
      this.watcher.on('error', (error) =>
        this.logger.warn({ err: error.message }, 'armory watcher failed; scanning on every request'),
      );
    } catch (error) {
      this.logger.warn({ err: messageOf(error) }, 'cannot watch the armory; scanning on every request');
    }
  }

  async manifest(): Promise<ArmoryManifest> {
    return (await this.current()).manifest;
  }

  async file(path: string): Promise<ArmoryFile> {
    const problem = armoryPathProblem(path);
    if (problem) throw new BridgeError(400, `unsafe armory file path (${problem}): ${JSON.stringify(path)}`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const scan = await this.current();
      const scanned = scan.files.get(path);
      if (!scanned) throw new BridgeError(404, `armory file not found: ${path}`);
      const { entry } = scanned;
      if (entry.size > ARMORY_FILE_LIMIT)
        throw new BridgeError(413, `armory file too large (${entry.size} bytes, limit ${ARMORY_FILE_LIMIT}): ${path}`);
      const stats = lstatSync(scanned.absolute, { throwIfNoEntry: false });
      if (
        stats?.isFile() &&
        stats.dev === scanned.dev &&
        stats.ino === scanned.ino &&
        stats.size <= ARMORY_FILE_LIMIT
      ) {
        const bytes = readFileSync(scanned.absolute);
        if (createHash('sha256').update(bytes).digest('hex') === entry.sha256) {
          let contents: string;
          let encoding: 'utf8' | 'base64';
          try {
            contents = utf8.decode(bytes);
            encoding = 'utf8';
          } catch {
            contents = bytes.toString('base64');
            encoding = 'base64';
          }
          return { ...entry, encoding, contents };
        }
      }
      // Changed since the scan (the watcher has not caught up yet): scan again once.
      this.scan = null;
    }
    throw new BridgeError(404, `armory file not found: ${path}`);
  }

  close(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
  }

  private current(): Promise<ArmoryScan> {
    if (!this.watcher) this.scan = null; // without a watcher nothing tells us the tree changed
    if (!this.scan) {
      this.scan = scanArmory(this.root);
      void this.scan.then(
        (scan) => {
          for (const warning of scan.warnings) this.logger.warn({ armory: this.root }, `armory: ${warning}`);
        },
        () => undefined,
      );
    }
    const scan = this.scan;
    scan.catch(() => {
      if (this.scan === scan) this.scan = null; // a bad map is reported now and re-read next time
    });
    return scan;
  }

  private async rescan(onChange: (revision: string) => void): Promise<void> {
    this.scan = null;
    try {
      const { manifest } = await this.current();
      if (manifest.revision === this.lastRevision) return;
      this.lastRevision = manifest.revision;
      onChange(manifest.revision);
    } catch (error) {
      this.logger.warn({ err: messageOf(error) }, 'armory rescan failed');
    }
  }
}
