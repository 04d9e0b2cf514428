// The agent harnesses `svc agent mcp-config` wires to a workspace's MCP server, one list for the CLI's
// choices, the harness plans (cli/agent/harnesses.ts) and the ship's SVC_AGENT_HARNESS. TypeBox-free: the
// CLI's command tree loads it (cli/main.ts start-up note).
export const HARNESSES = ['claude-code', 'codex', 'opencode', 'copilot', 'gemini'] as const;
export type Harness = (typeof HARNESSES)[number];

/** What `--harness` and SVC_AGENT_HARNESS accept: a harness, or `all` of them. */
export const HARNESS_CHOICES = [...HARNESSES, 'all'] as const;
export type HarnessChoice = (typeof HARNESS_CHOICES)[number];

/** The harness SVC_AGENT_HARNESS names, or undefined when it is empty; throws on an unknown one. */
export function agentHarnessFrom(value: string | undefined): HarnessChoice | undefined {
  const harness = value?.trim();
  if (!harness) return undefined;
  if (!(HARNESS_CHOICES as readonly string[]).includes(harness)) {
    throw new Error(`SVC_AGENT_HARNESS: "${harness}" is not one of ${HARNESS_CHOICES.join(', ')}`);
  }
  return harness as HarnessChoice;
}
