// The agent's MCP wiring at session start (issue #27, SVC_AGENT_HARNESS; the chart's `ship.agent.harness`):
// each new workspace session first runs `svc agent mcp-config --harness <h> --write` in the workspace, as
// the agent itself would, so the harness finds the workspace's MCP server configured with no manual step.
// It runs in the session (its cwd, its SVC_MCP_TOKEN and SVC_SHIP_URL), before the session's own command;
// its output is dropped, an error of it shows in the terminal and never keeps the shell from starting.

import type { HarnessChoice } from '../../protocol/agent-harnesses.js';

const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The shell command a session runs first: `svc` as `self` (the argv that starts this svc, e.g. node and
 * bin/svc.js) writing the harness's configuration.
 */
export function agentWiringPrelude(harness: HarnessChoice, self: readonly string[]): string {
  return `${self.map(quoted).join(' ')} agent mcp-config --harness ${harness} --write >/dev/null`;
}
