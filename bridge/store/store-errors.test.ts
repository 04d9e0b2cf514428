// The store's failure kinds (store-errors.ts): what pg and PGlite raise for a lost or stalled server is
// StoreUnavailable, text the store cannot hold is StoreRejectedInput, anything else is left as raised.
import { expect, it } from 'vitest';
import { classifyStoreError, StoreRejectedInput, StoreUnavailable } from './store-errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

it.each([
  ['the server shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
  ['a connection failure (08006)', withCode('connection failure', '08006')],
  ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ["pg's lost connection, which has no code", new Error('Connection terminated unexpectedly')],
  ["pg's query deadline", new Error('Query read timeout')],
  ["pg's connect deadline", new Error('timeout exceeded when trying to connect')],
])('%s is StoreUnavailable, keeping the cause', (_what, error) => {
  const classified = classifyStoreError(error);
  expect(classified).toBeInstanceOf(StoreUnavailable);
  expect((classified as Error).cause).toBe(error);
});

it.each([
  ['a NUL in text (22021)', withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021')],
  ['a character the encoding lacks (22P05)', withCode('unsupported Unicode escape sequence', '22P05')],
])('%s is StoreRejectedInput', (_what, error) => {
  expect(classifyStoreError(error)).toBeInstanceOf(StoreRejectedInput);
});

it('leaves any other failure as it was raised', () => {
  const unique = withCode('duplicate key value violates unique constraint', '23505');
  expect(classifyStoreError(unique)).toBe(unique);
  expect(classifyStoreError('not an error')).toBe('not an error');
});
