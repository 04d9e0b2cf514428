// Workspace MCP tokens: minted at activation (32 random bytes, base64url), bound to one workspace in memory,
// unbound on deactivate and delete. Stored by sha256 so a lookup never compares secrets byte by byte.
import { createHash, randomBytes } from 'node:crypto';
import { MCP_TOKEN_BYTES } from '../../protocol/index.js';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

export class McpTokenRegistry {
  private readonly keyByDigest = new Map<string, string>();
  private readonly digestByKey = new Map<string, string>();

  mint(): string {
    return randomBytes(MCP_TOKEN_BYTES).toString('base64url');
  }

  bind(key: string, token: string): void {
    this.unbind(key);
    const hashed = digest(token);
    this.keyByDigest.set(hashed, key);
    this.digestByKey.set(key, hashed);
  }

  unbind(key: string): void {
    const hashed = this.digestByKey.get(key);
    if (hashed === undefined) return;
    this.digestByKey.delete(key);
    this.keyByDigest.delete(hashed);
  }

  /** The workspace key a token is bound to, or null. */
  resolve(token: string): string | null {
    return this.keyByDigest.get(digest(token)) ?? null;
  }
}
