// The inbox's entries for the signed-in user: who needs a human now (state/attention.ts) from the live
// stream, less what they dismissed (state/attention-preferences.ts).
import { useMemo } from 'react';
import { attentionEntries, type AttentionEntry } from '../state/attention.js';
import { useDismissals } from '../state/attention-preferences.js';
import { useLiveFleet } from '../state/live-fleet.js';
import { useViewer } from '../state/session.js';

export interface Attention {
  entries: AttentionEntry[];
  /** Whether the first `sync` has arrived (before it, no entry means "not known yet"). */
  synced: boolean;
  dismiss(entry: AttentionEntry): void;
}

export function useAttention(): Attention {
  const { list, histories } = useLiveFleet();
  const { user } = useViewer();
  const { dismissals, dismiss } = useDismissals(user?.username ?? '');
  const entries = useMemo(() => attentionEntries(list, histories, dismissals), [list, histories, dismissals]);
  return { entries, synced: list.synced, dismiss: (entry) => dismiss(entry.key, entry.since) };
}
