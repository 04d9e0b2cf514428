// Identifiers: repo, workspace and ship names. The TypeBox schema that carries the spec's six rules
// (identifier-rules.ts, re-exported here), so every component validates names the same way.
import { Type, type Static } from 'typebox';
import { identifierProblem } from './identifier-rules.js';

export { IDENTIFIER_MAX_BYTES, identifierProblem, isIdentifier } from './identifier-rules.js';

/** Marks the refinement so error mapping can tell an identifier failure (400) from a shape failure (422). */
export const IDENTIFIER_REFINEMENT = 'identifier';

export const Identifier = Type.Refine(
  Type.String({ [IDENTIFIER_REFINEMENT]: true }),
  (value) => identifierProblem(value) === null,
  (value) => identifierProblem(value) ?? 'invalid identifier',
);
export type Identifier = Static<typeof Identifier>;

/** A workspace's identity `<repoName>/<name>`. */
export function workspaceKey(repoName: string, name: string): string {
  return `${repoName}/${name}`;
}
