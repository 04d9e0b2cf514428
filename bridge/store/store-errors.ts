// The store's failures, classified where they are raised (store/database.ts wraps every engine call), so
// no caller reads a driver's words: the store gone, restarting or stalled is StoreUnavailable (a request
// may retry shortly: 503); text PostgreSQL cannot hold (a NUL, a character its encoding lacks) is
// StoreRejectedInput (the input's fault: 400). Anything else passes through as the driver raised it.

export class StoreUnavailable extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'StoreUnavailable';
  }
}

export class StoreRejectedInput extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
    this.name = 'StoreRejectedInput';
  }
}

/** Connection lost or refused, shutting down or starting up (SQLSTATE 08…, 57P0…), a client deadline passed. */
const UNAVAILABLE_CODES = /^(08|57P0)/;
const UNAVAILABLE_NETWORK = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'];
/** pg's own errors for a lost or stalled server carry no code: its words are all there is. */
const UNAVAILABLE_WORDS =
  /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|terminating connection|Query read timeout|timeout exceeded when trying to connect/;
/** 22021: a byte sequence invalid in the encoding (NUL); 22P05: a character the encoding cannot hold. */
const REJECTED_INPUT_CODES = ['22021', '22P05'];

/** `error` as one of the store's kinds when it is one, else itself. */
export function classifyStoreError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreUnavailable || error instanceof StoreRejectedInput)
    return error;
  const code = String((error as { code?: unknown }).code ?? '');
  if (UNAVAILABLE_CODES.test(code) || UNAVAILABLE_NETWORK.includes(code) || UNAVAILABLE_WORDS.test(error.message))
    return new StoreUnavailable(error);
  if (REJECTED_INPUT_CODES.includes(code)) return new StoreRejectedInput(error);
  return error;
}

/** Runs `call`, rethrowing its failure classified. */
export async function classified<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw classifyStoreError(error);
  }
}
