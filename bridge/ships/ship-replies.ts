// What the bridge reads out of a ship's answer, in one place for every caller (routes, create, sweeper): a
// ship's error message as the spec passes it through, and the `branchCreated` a create or branch answer
// may carry (protocol/workspace.ts).
import type { BranchOutcome } from '../../protocol/index.js';
import { BridgeError } from '../errors.js';
import { parseJson, type ShipReply } from './ship-client.js';

/** The ship's `{error}` text, or `ship answered <status>` when its body has none. */
export function shipErrorMessage(reply: ShipReply): string {
  const body = parseJson(reply) as { error?: unknown } | null;
  return typeof body?.error === 'string' ? body.error : `ship answered ${reply.status}`;
}

/** A ship's error answer, passed through as the spec says: its status and message. */
export function shipError(reply: ShipReply): BridgeError {
  return new BridgeError(reply.status, shipErrorMessage(reply));
}

/**
 * `branchCreated` from a ship's create or branch answer, passed on when the ship said it (a ship older than
 * the field says nothing, and the bridge then claims nothing either).
 */
export function branchOutcome(body: unknown): Partial<BranchOutcome> {
  const said = (body as { branchCreated?: unknown } | null)?.branchCreated;
  return typeof said === 'boolean' ? { branchCreated: said } : {};
}
