// Whether the page's live stream (state/live-fleet.tsx) is connected: "live" or "offline".
import { useLiveFleet } from '../state/live-fleet.js';

export function LiveIndicator() {
  const { connected } = useLiveFleet();
  return (
    <span className={connected ? 'live on' : 'live off'} data-testid="live">
      {connected ? 'live' : 'offline'}
    </span>
  );
}
