// The raw diff of GET …/diff. Options map one to one onto git flags and omitted ones are simply absent.
// Revisions follow `--end-of-options` and paths follow `--`, so a query value can never become a git option
// (`range=--output=<file>`: docs/security.md F7). `includeUntracked` appends add-file diffs that the ship
// synthesizes for untracked files, reading only regular files and symlinks (never a FIFO or device).
import { lstat, open, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiffQuery } from '../../protocol/index.js';
import { invalidDiffRequest, WorkspaceError } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { firstLine } from './clone.js';

/** Untracked files larger than this are shown as binary rather than read whole. */
export const UNTRACKED_TEXT_LIMIT = 1024 * 1024;
const BINARY_PROBE = 8000;

export async function diffText(git: GitRunner, dir: string, query: DiffQuery): Promise<Buffer> {
  if (query.range !== undefined && query.range.trim() === '') throw invalidDiffRequest('range must not be empty');
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color'];
  if (query.staged) args.push('--cached');
  if (query.stat) args.push('--stat');
  if (query.nameOnly) args.push('--name-only');
  args.push('--end-of-options');
  if (query.range !== undefined) args.push(query.range);
  args.push('--', ...(query.paths ?? []));
  const result = await git.run(args, { cwd: dir });
  if (result.code !== 0) {
    const reason = firstLine(result.stderr) || `git diff exited with code ${result.code}`;
    if (query.range !== undefined || query.paths?.length) throw invalidDiffRequest(reason);
    throw new WorkspaceError(500, `git diff failed: ${reason}`);
  }
  if (!query.includeUntracked) return result.stdout;
  const untracked = await untrackedDiff(git, dir, query);
  return Buffer.concat([result.stdout, untracked]);
}

async function listUntracked(git: GitRunner, dir: string, paths: string[]): Promise<string[]> {
  const result = await git.run(['ls-files', '--others', '--exclude-standard', '-z', '--', ...paths], { cwd: dir });
  if (result.code !== 0) throw invalidDiffRequest(firstLine(result.stderr));
  return result.stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path !== '');
}

interface UntrackedFile {
  path: string;
  mode: '100644' | '100755' | '120000';
  content: Buffer | null; // null: binary
}

async function readUntracked(dir: string, path: string): Promise<UntrackedFile | null> {
  const full = join(dir, path);
  const stats = await lstat(full).catch(() => null);
  if (!stats) return null;
  if (stats.isSymbolicLink()) {
    const target = await readlink(full).catch(() => null);
    return target === null ? null : { path, mode: '120000', content: Buffer.from(target) };
  }
  if (!stats.isFile()) return null;
  const mode = stats.mode & 0o111 ? '100755' : '100644';
  if (stats.size > UNTRACKED_TEXT_LIMIT) return { path, mode, content: null };
  const handle = await open(full, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const content = await handle.readFile();
    return { path, mode, content: content.subarray(0, BINARY_PROBE).includes(0) ? null : content };
  } finally {
    await handle.close();
  }
}

function patchFor(file: UntrackedFile): string {
  const header = `diff --git a/${file.path} b/${file.path}\nnew file mode ${file.mode}\n`;
  if (file.content === null) return `${header}Binary files /dev/null and b/${file.path} differ\n`;
  if (file.content.length === 0) return header;
  const text = file.content.toString('utf8');
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  const body = lines.map((line) => `+${line}\n`).join('');
  return `${header}--- /dev/null\n+++ b/${file.path}\n@@ -0,0 +1${lines.length === 1 ? '' : `,${lines.length}`} @@\n${body}${
    endsWithNewline ? '' : '\\ No newline at end of file\n'
  }`;
}

function lineCount(file: UntrackedFile): number {
  if (!file.content || file.content.length === 0) return 0;
  const text = file.content.toString('utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

async function untrackedDiff(git: GitRunner, dir: string, query: DiffQuery): Promise<Buffer> {
  const paths = await listUntracked(git, dir, query.paths ?? []);
  const files = (await Promise.all(paths.map((path) => readUntracked(dir, path)))).filter(
    (f): f is UntrackedFile => f !== null,
  );
  if (query.nameOnly) return Buffer.from(files.map((file) => `${file.path}\n`).join(''));
  if (query.stat) {
    if (files.length === 0) return Buffer.alloc(0);
    const lines = files.map((file) =>
      file.content === null
        ? ` ${file.path} | Bin\n`
        : ` ${file.path} | ${lineCount(file)} ${'+'.repeat(Math.min(lineCount(file), 50))}\n`,
    );
    const insertions = files.reduce((sum, file) => sum + lineCount(file), 0);
    const summary = ` ${files.length} untracked file${files.length === 1 ? '' : 's'}, ${insertions} insertion${insertions === 1 ? '' : 's'}(+)\n`;
    return Buffer.from(lines.join('') + summary);
  }
  return Buffer.from(files.map(patchFor).join(''));
}
