// A workspace named on the command line: its identifiers checked before any call, and its API path.
import { identifierProblem } from '../../protocol/identifier-rules.js';

export { workspacePath } from '../../protocol/workspace-path.js';

export function checkKey(repo: string, name: string): void {
  const repoProblem = identifierProblem(repo);
  if (repoProblem) throw new Error(`invalid repo identifier: ${repoProblem}`);
  const nameProblem = identifierProblem(name);
  if (nameProblem) throw new Error(`invalid workspace identifier: ${nameProblem}`);
}
