// Bridge options for suites that test routing, not authentication: the bridge runs as with
// --insecure-no-auth, and its banner is kept out of the test output.
import type { BridgeOptions } from '../../bridge/server.js';

export const insecureBridge: Pick<BridgeOptions, 'insecureNoAuth' | 'banner'> = {
  insecureNoAuth: true,
  banner: { write: () => undefined },
};
