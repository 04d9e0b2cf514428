// The CLI's stored sessions (docs/cli.md): one file per bridge URL, named by the sha256 of the URL, in
// `$XDG_CONFIG_HOME/svc/sessions` (default `~/.config/svc/sessions`); the directory 0700, each file 0600,
// written atomically so a crash never leaves half a token.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../server/atomic-file.js';

export interface StoredSession {
  bridgeUrl: string;
  token: string;
  username: string;
}

export function sessionsDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'svc', 'sessions');
}

const fileFor = (bridgeUrl: string, env?: NodeJS.ProcessEnv) =>
  join(sessionsDirectory(env), `${createHash('sha256').update(bridgeUrl).digest('hex')}.json`);

export function readSession(bridgeUrl: string, env?: NodeJS.ProcessEnv): StoredSession | null {
  try {
    const parsed = JSON.parse(readFileSync(fileFor(bridgeUrl, env), 'utf8')) as Partial<StoredSession>;
    if (parsed.bridgeUrl !== bridgeUrl || typeof parsed.token !== 'string' || typeof parsed.username !== 'string')
      return null;
    return { bridgeUrl, token: parsed.token, username: parsed.username };
  } catch {
    return null;
  }
}

export function writeSession(session: StoredSession, env?: NodeJS.ProcessEnv): string {
  const directory = sessionsDirectory(env);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const file = fileFor(session.bridgeUrl, env);
  writeFileAtomicSync(file, `${JSON.stringify(session)}\n`);
  return file;
}

export function removeSession(bridgeUrl: string, env?: NodeJS.ProcessEnv): void {
  rmSync(fileFor(bridgeUrl, env), { force: true });
}
