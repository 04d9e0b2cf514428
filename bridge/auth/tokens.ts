// Bearer secrets the bridge issues (sessions, agent tokens, tickets): 32 CSPRNG bytes in base64url (spec
// rule 6), and the sha256 they are stored and looked up by.
import { createHash, randomBytes } from 'node:crypto';
import { TOKEN_BYTES } from '../../protocol/index.js';

export const newToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
