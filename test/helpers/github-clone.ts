// GitHub clone URLs in tests without the network: a HOME whose .gitconfig makes git fetch a GitHub-style
// URL from a local bare repository (`url.<bare>.insteadOf`). The ship hands HOME to its git children (and
// drops every GIT_CONFIG_* variable), so a ship started with this HOME clones what the fake forge serves.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Creates `<root>/<name>` holding a .gitconfig that redirects `url` to the bare repository; answers it. */
export function cloneHome(root: string, bare: string, url: string, name = 'home'): string {
  const home = join(root, name);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), `[url "file://${bare}"]\n\tinsteadOf = ${url}\n`);
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
