// Where a ship stands with the bridge's armory (issue #31), as one label the armory page shows per ship.
// Pure: decided from the ship's sync state (GET /armory/ships) and the bridge's current revision.
// - unknown: no state (the ship is offline, or did not answer with a valid one);
// - error: its last sync failed (`lastError`), whatever revision it still holds;
// - never synced: no revision yet;
// - in sync / behind: its revision is / is not the bridge's (a ship that has not pulled since a change).
import type { ArmorySyncState } from '../../../protocol/armory.js';

export type ArmorySyncLabel = 'in sync' | 'behind' | 'never synced' | 'error' | 'unknown';

export function armorySyncLabel(state: ArmorySyncState | null, currentRevision: string | undefined): ArmorySyncLabel {
  if (!state) return 'unknown';
  if (state.lastError !== null) return 'error';
  if (state.revision === null) return 'never synced';
  if (currentRevision === undefined) return 'unknown';
  return state.revision === currentRevision ? 'in sync' : 'behind';
}
