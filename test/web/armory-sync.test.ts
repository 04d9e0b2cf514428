// The armory page's per-ship label (web/src/state/armory-sync.ts): one named case per label, and the order
// of precedence (an error outranks the revision it still holds).
import { describe, expect, it } from 'vitest';
import { NEVER_SYNCED, type ArmorySyncState } from '../../protocol/armory.js';
import { armorySyncLabel, type ArmorySyncLabel } from '../../web/src/state/armory-sync.js';

const CURRENT = 'a'.repeat(64);
const OLD = 'b'.repeat(64);
const synced = (fields: Partial<ArmorySyncState>): ArmorySyncState => ({
  ...NEVER_SYNCED,
  revision: CURRENT,
  syncedAt: '2026-01-01T00:00:00Z',
  fileCount: 3,
  ...fields,
});

const CASES: Array<{
  name: string;
  state: ArmorySyncState | null;
  current: string | undefined;
  label: ArmorySyncLabel;
}> = [
  { name: 'no state (offline, or no valid answer)', state: null, current: CURRENT, label: 'unknown' },
  { name: 'the bridge revision not loaded yet', state: synced({}), current: undefined, label: 'unknown' },
  { name: 'never synced', state: NEVER_SYNCED, current: CURRENT, label: 'never synced' },
  { name: 'the current revision', state: synced({}), current: CURRENT, label: 'in sync' },
  { name: 'an older revision', state: synced({ revision: OLD }), current: CURRENT, label: 'behind' },
  {
    name: 'a failed sync holding the current revision',
    state: synced({ lastError: 'bridge answered 401' }),
    current: CURRENT,
    label: 'error',
  },
  {
    name: 'a failed first sync',
    state: { ...NEVER_SYNCED, lastError: 'connection refused' },
    current: CURRENT,
    label: 'error',
  },
];

describe('armory sync label', () => {
  for (const { name, state, current, label } of CASES) {
    it(name, () => expect(armorySyncLabel(state, current)).toBe(label));
  }
});
