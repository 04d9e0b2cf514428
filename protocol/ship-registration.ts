// The refusals of POST /ships that a client acts on, not only shows: the operator tells a name already
// registered (adopt or replace it) from a ship that refused the bridge token (TokensInvalid) from a ship that
// did not answer (ShipUnreachable). Errors are `{error}` with a message and no code field (spec), so the
// message is the contract: the bridge builds it here and the operator reads it back here, each format with
// its reader, and protocol/ship-registration.test.ts holds them to each other.

/** POST /ships: a ship reporting that name is already registered. */
export const SHIP_TAKEN_STATUS = 409;
/** POST /ships: the ship at the URL did not answer the bridge's probe (the bridge is fine; the ship is not). */
export const SHIP_UNREACHABLE_STATUS = 502;

const TAKEN = 'ship already registered: ';
const NO_ANSWER = ' did not respond: ';
const STREAM_REFUSED = /^the ship answered HTTP (\d{3}) to the event stream$/;

/** The 409 message (the spec's wording). */
export function shipAlreadyRegistered(name: string): string {
  return `${TAKEN}${name}`;
}

/** The name a 409 message reports, or undefined for another message (a 409 about workspaces hosted elsewhere). */
export function alreadyRegisteredName(message: string): string | undefined {
  return message.startsWith(TAKEN) && message.length > TAKEN.length ? message.slice(TAKEN.length) : undefined;
}

/** The 502 message: the URL probed and why the probe failed. */
export function shipDidNotRespond(url: string, reason: string): string {
  return `ship at ${url}${NO_ANSWER}${reason}`;
}

/** Why the probe failed when the ship answered the event-stream upgrade with an HTTP status instead. */
export function shipStreamRefused(status: number): string {
  return `the ship answered HTTP ${status} to the event stream`;
}

/** The HTTP status a 502 message says the ship refused the probe with (401: the bridge token), if it says one. */
export function probeRefusalStatus(message: string): number | undefined {
  if (!message.startsWith('ship at ')) return undefined;
  const at = message.indexOf(NO_ANSWER);
  if (at < 0) return undefined;
  const refused = STREAM_REFUSED.exec(message.slice(at + NO_ANSWER.length));
  return refused ? Number(refused[1]) : undefined;
}
