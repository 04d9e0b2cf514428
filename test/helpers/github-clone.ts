// GitHub clone URLs in tests without the network: a HOME whose .gitconfig makes git fetch a GitHub-style
// URL from a local bare repository, or any git URL (`url.<source>.insteadOf`), and the fake forge backed by
// that bare repository (its createLinkedBranch makes real branches there). The ship hands HOME to its git
// children (and drops every GIT_CONFIG_* variable), so a ship started with this HOME clones what the fake
// forge serves.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeGitHub } from '../fakes/github.js';

/**
 * Creates `<root>/<name>` holding a .gitconfig that redirects `url` to `source` (a bare repository's path,
 * or a git URL), plus `extra` lines of config; answers it.
 */
export function cloneHome(root: string, source: string, url: string, name = 'home', extra = ''): string {
  const home = join(root, name);
  mkdirSync(home, { recursive: true });
  const target = source.includes('://') ? source : `file://${source}`;
  writeFileSync(join(home, '.gitconfig'), `[url "${target}"]\n\tinsteadOf = ${url}\n${extra}`);
  return home;
}

/** Points this process's HOME (so in-process ships) at `home`; answers the function that puts it back. */
export function useHome(home: string): () => void {
  const saved = process.env.HOME;
  process.env.HOME = home;
  return () => {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
  };
}

/** The fake forge, started, requiring `token`, its branches those of the bare repository `bare`. */
export async function startBackedForge(bare: string, token: string): Promise<FakeGitHub> {
  const fake = new FakeGitHub();
  fake.token = token;
  fake.backingRepo = bare;
  return fake.start();
}
