// Ship/bridge token generation for the New Ship form (spec "Ship/bridge token pair" rule 3): 32 bytes of
// CSPRNG output (crypto.getRandomValues) in base64url without padding, 43 characters.
import { TOKEN_BYTES } from '../../../protocol/auth.js';

export type RandomFill = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>;

const defaultFill: RandomFill = (bytes) => crypto.getRandomValues(bytes);

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function generateToken(fill: RandomFill = defaultFill): string {
  return base64url(fill(new Uint8Array(TOKEN_BYTES)));
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
