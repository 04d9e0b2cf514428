// Which bridge may push the armory (spec POST /armory/sync): the `--bridge-url` flag, else the first bridge
// that pushed (remembered across restarts). Compared as an origin plus path: scheme, host and port, case
// and a trailing slash ignored, default ports made explicit.
import { join } from 'node:path';
import { readJson } from './ship-state-dir.js';
import { writeFileAtomicSync } from '../../server/atomic-file.js';

export function comparableBridgeUrl(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.protocol}//${parsed.hostname.toLowerCase()}:${port}${parsed.pathname.replace(/\/+$/, '').toLowerCase()}`;
}

export class BridgePin {
  private pinned: string | null;
  private readonly file: string;

  constructor(stateDirectory: string, flag: string | undefined) {
    this.file = join(stateDirectory, 'pin.json');
    this.pinned = flag ?? readJson<{ bridgeUrl: string }>(this.file)?.bridgeUrl ?? null;
    this.fromFlag = flag !== undefined;
  }

  private readonly fromFlag: boolean;

  /** The pinned bridge a push must name, or null when `offered` may be trusted (and is now pinned). */
  check(offered: string): string | null {
    if (this.pinned === null) {
      this.pinned = offered;
      if (!this.fromFlag) writeFileAtomicSync(this.file, JSON.stringify({ bridgeUrl: offered }));
      return null;
    }
    return comparableBridgeUrl(this.pinned) === comparableBridgeUrl(offered) ? null : this.pinned;
  }
}
