// How the bridge's failures map to answers (server/error-handler.ts does the mapping for both servers):
// BridgeError → its status, `{error}` and headers; identifier rules on the fields a route's config names
// (`identifierFields`) → 400 with that field's message and the rule broken; the store gone or stalled → a
// 503 to retry; text PostgreSQL cannot store → 400.
import type { ErrorHandling } from '../../server/error-handler.js';
import { BridgeError } from '../errors.js';

export type { IdentifierFields } from '../../server/error-handler.js';

/** PostgreSQL gone, restarting or stalled (refused or reset, shutting down or starting up, a client deadline passed). */
export function storeUnavailable(error: Error): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  if (/^(08|57P0)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) return true;
  return /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|terminating connection|Query read timeout|timeout exceeded when trying to connect/.test(
    error.message,
  );
}

export const BRIDGE_ERRORS: ErrorHandling = {
  known: (error) => (error instanceof BridgeError ? { status: error.status, message: error.message, headers: error.headers } : null),
  unavailable: (error) =>
    storeUnavailable(error) ? { message: `the bridge's store is unavailable; retry shortly (${error.message})`, retryAfterSeconds: 2, log: 'store unavailable' } : null,
  // PostgreSQL refuses NUL in text (22021) and characters its encoding lacks (22P05): the input's fault.
  badInput: (error) => {
    const sqlState = (error as { code?: unknown }).code;
    return sqlState === '22021' || sqlState === '22P05' ? 'invalid request — text may not contain NUL or unencodable characters' : null;
  },
};
