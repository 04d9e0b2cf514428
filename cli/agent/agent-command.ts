// `svc agent`: commands an agent's session runs inside its workspace. `mcp-config` wires a harness to the
// workspace's MCP endpoint (issue #16). Only commander here; the work is loaded on use (main.ts start-up note).
import { Command, Option } from 'commander';
import { HARNESS_CHOICES } from '../../protocol/agent-harnesses.js';

export function agentCommand(): Command {
  const agent = new Command('agent').description("commands for a coding agent's session inside a workspace");
  agent
    .command('mcp-config')
    .description(
      "print (or --write) a harness's entry for this workspace's MCP server svc-agent; --check connects as the harness would",
    )
    .addOption(
      new Option('--harness <harness>', 'the agent harness to configure')
        .choices([...HARNESS_CHOICES])
        .makeOptionMandatory(),
    )
    .option(
      '--write',
      "merge the entry into the harness's own configuration file (idempotent; other entries and comments kept)",
      false,
    )
    .option(
      '--check',
      'connect as the harness would (initialize, tools/list, agent_status_get) and print the tool names',
      false,
    )
    .action(async (options: { harness: string; write: boolean; check: boolean }) => {
      const { runMcpConfig } = await import('./mcp-config.js');
      await runMcpConfig(
        {
          harness: options.harness as Parameters<typeof runMcpConfig>[0]['harness'],
          write: options.write,
          check: options.check,
        },
        { cwd: process.cwd(), env: process.env, out: (text) => process.stdout.write(text) },
      );
    });
  return agent;
}
