// Bearer secrets svc issues (sessions, agent tokens, tickets, ship token pairs): 32 CSPRNG bytes in base64url (spec
// rule 6), and the sha256 they are stored and looked up by.
import { hash, randomBytes } from 'node:crypto';
import { TOKEN_BYTES } from '../protocol/index.js';

export const newToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

/** One-shot `crypto.hash` (Node ≥ 20.12): the guard hashes the bearer token on every request. */
export const tokenHash = (token: string): string => hash('sha256', token, 'hex');
