// Syntax colouring of a diff (react-diff-view's tokenize with refractor, Prism's grammars): the languages a
// coding agent's repositories mostly hold, registered once, and a file's language from its name. A file of
// another language is shown uncoloured. refractor 5 answers a hast root; react-diff-view 3 wants the root's
// children (its README: "use refractor@3"), hence the adapter.
import { refractor } from 'refractor/core';
import bash from 'refractor/bash';
import css from 'refractor/css';
import go from 'refractor/go';
import java from 'refractor/java';
import javascript from 'refractor/javascript';
import json from 'refractor/json';
import jsx from 'refractor/jsx';
import markdown from 'refractor/markdown';
import python from 'refractor/python';
import rust from 'refractor/rust';
import tsx from 'refractor/tsx';
import typescript from 'refractor/typescript';
import yaml from 'refractor/yaml';
import { tokenize, type HunkData, type HunkTokens } from 'react-diff-view';

for (const grammar of [bash, css, go, java, javascript, json, jsx, markdown, python, rust, typescript, tsx, yaml])
  refractor.register(grammar);

const BY_EXTENSION: Record<string, string> = {
  sh: 'bash',
  bash: 'bash',
  css: 'css',
  go: 'go',
  java: 'java',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  jsx: 'jsx',
  md: 'markdown',
  py: 'python',
  rs: 'rust',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  yaml: 'yaml',
  yml: 'yaml',
};

export function languageOf(path: string): string | null {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase();
  return extension ? (BY_EXTENSION[extension] ?? null) : null;
}

const adapter = { highlight: (value: string, language: string) => refractor.highlight(value, language).children };

/** Tokens for `hunks` of the file at `path`, or undefined when its language is not known here. */
export function highlightTokens(path: string, hunks: HunkData[]): HunkTokens | undefined {
  const language = languageOf(path);
  if (!language) return undefined;
  try {
    return tokenize(hunks, { highlight: true, refractor: adapter, language });
  } catch {
    return undefined;
  }
}
