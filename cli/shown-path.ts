// A path as the user would type it in messages: `./…` relative to the working directory when it lies inside
// it, absolute otherwise.
import { isAbsolute, relative } from 'node:path';

export function shownPath(path: string, cwd = process.cwd()): string {
  const inside = relative(cwd, path);
  if (inside === '') return '.';
  return inside.startsWith('..') || isAbsolute(inside) ? path : `./${inside}`;
}
