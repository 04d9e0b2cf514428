// The `svc-agent` MCP server: the tool list assembled into a fresh McpServer per request (the stateless
// transport is one server + transport per request), with the instructions that tell an agent when to call
// each tool (docs/mcp.md).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { SVC_VERSION } from '../../../protocol/version.js';
import { agentTools } from './agent-tools.js';
import { repoTools } from './repo-tools.js';
import type { AnyTool, ToolContext } from './tool.js';

export const MCP_SERVER_NAME = 'svc-agent';

export const MCP_TOOLS: readonly AnyTool[] = [...agentTools, ...repoTools];

export const MCP_INSTRUCTIONS = [
  'svc runs this workspace and shows the humans watching it what you are doing. This server is bound to this workspace: no tool takes a repository or workspace name.',
  'Status: call agent_init once when your session starts. Then call agent_status at every phase change (planning, building, verifying) with a one-line description of what you are doing now;',
  'call agent_status with state awaiting before you ask a human anything, and with state idle when you are done. Add a link (pull request, issue, CI run) when the update is about one.',
  "Repository: repo_info, repo_issue_list and repo_issue_view read this workspace's repository on its forge; repo_issue_comment, repo_pr_comment and repo_pr_review write to it;",
  'repo_pr_list and repo_pr_view read pull requests; after pushing, repo_checks shows CI and repo_failed_logs the logs of failed jobs. They need a bridge connected to this ship.',
].join('\n');

/**
 * One JSON Schema validator for every request's server: the SDK builds a new Ajv per server otherwise, which
 * was most of an MCP call's CPU on the ship (bench mcp). It compiles only what a server asks it to (this
 * server asks nothing: no elicitation), so sharing it shares no request's state.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/**
 * Each tool's input and output as zod objects, built once: given raw shapes, the SDK builds the objects
 * again for every registration, that is for every request.
 */
const schemas = new WeakMap<AnyTool, { input: z.ZodObject; output: z.ZodObject }>();
function schemasOf(tool: AnyTool): { input: z.ZodObject; output: z.ZodObject } {
  let built = schemas.get(tool);
  if (!built) {
    built = { input: z.object(tool.input), output: z.object(tool.output) };
    schemas.set(tool, built);
  }
  return built;
}

export function buildMcpServer(context: ToolContext, tools: readonly AnyTool[] = MCP_TOOLS): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: SVC_VERSION },
    {
      instructions: MCP_INSTRUCTIONS,
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: sharedValidator,
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: schemasOf(tool).input,
        outputSchema: schemasOf(tool).output,
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>) => {
        try {
          const { result, summary } = await tool.run(args as never, context);
          return {
            content: [{ type: 'text' as const, text: summary }],
            structuredContent: result as Record<string, unknown>,
          };
        } catch (error) {
          return {
            content: [{ type: 'text' as const, text: error instanceof Error ? error.message : String(error) }],
            isError: true,
          };
        }
      },
    );
  }
  return server;
}
