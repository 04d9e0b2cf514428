// How the bridge's failures map to answers (server/error-handler.ts does the mapping for both servers):
// BridgeError → its status, `{error}` and headers; identifier rules on the fields a route's config names
// (`identifierFields`) → 400 with that field's message and the rule broken; the store gone or stalled → a
// 503 to retry; text the store refuses → 400 (both classified by the store: store/store-errors.ts). A 422
// is the validator's findings, or a ship's or a forge's 422 passed through as `{error}` (spec "Errors").
import { Type } from 'typebox';
import { ErrorBody, ValidationErrorBody } from '../../protocol/index.js';
import type { ErrorHandling } from '../../server/error-handler.js';
import { answer } from '../../server/route-responses.js';
import { BridgeError } from '../errors.js';
import { StoreRejectedInput, StoreUnavailable } from '../store/store-errors.js';

export type { IdentifierFields } from '../../server/error-handler.js';

export const BRIDGE_ERRORS: ErrorHandling = {
  validationAnswer: answer(
    "A request part failed its schema (the validator's findings), or the ship's or the forge's 422 passed through as `{error}`.",
    Type.Union([ValidationErrorBody, ErrorBody]),
  ),
  known: (error) =>
    error instanceof BridgeError ? { status: error.status, message: error.message, headers: error.headers } : null,
  unavailable: (error) =>
    error instanceof StoreUnavailable
      ? {
          message: `the bridge's store is unavailable; retry shortly (${error.message})`,
          retryAfterSeconds: 2,
          log: 'store unavailable',
        }
      : null,
  badInput: (error) =>
    error instanceof StoreRejectedInput ? 'invalid request — text may not contain NUL or unencodable characters' : null,
};
