// Benchmark fixtures: a bare repository of realistic size (a few hundred files over several commits), built
// with the git CLI in a temp directory.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const IDENTITY = [
  '-c',
  'user.name=bench',
  '-c',
  'user.email=bench@svc.invalid',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'commit.gpgsign=false',
];

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function makeBenchRemote(root: string, files = 400): { bare: string; url: string } {
  const work = join(root, 'bench-work');
  const bare = join(root, 'bench.git');
  mkdirSync(work, { recursive: true });
  git(root, 'init', '--quiet', '--bare', bare);
  git(work, 'init', '--quiet');
  for (let commit = 0; commit < 4; commit++) {
    for (let i = commit; i < files; i += 4) {
      const dir = join(work, `pkg${i % 20}`);
      mkdirSync(dir, { recursive: true });
      const lines = Array.from(
        { length: 40 },
        (_, n) => `export const value${n} = ${i * n + commit}; // line ${n} of file ${i}`,
      );
      writeFileSync(join(dir, `file${i}.ts`), `${lines.join('\n')}\n`);
    }
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', `commit ${commit}`);
  }
  git(work, 'push', '--quiet', bare, 'main');
  git(bare, 'symbolic-ref', 'HEAD', 'refs/heads/main');
  return { bare, url: `file://${bare}` };
}
