// docs/mcp.md is the `svc-agent` MCP server as agents see it — its instructions and every tool's
// description, annotations and input/output JSON Schemas — rendered from the tool records the ship serves,
// so it cannot drift from them. After changing a tool, rewrite it with
// `SVC_UPDATE_DOCS=1 npx vitest run test/docs/mcp-tools.test.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod';
import { expect, it } from 'vitest';
import { MCP_INSTRUCTIONS, MCP_SERVER_NAME, MCP_TOOLS } from '../../ship/agents/mcp/server.js';

const FILE = resolve(import.meta.dirname, '../../docs/mcp.md');

const schema = (shape: z.ZodRawShape) => JSON.stringify(z.toJSONSchema(z.object(shape)), null, 2);

function render(): string {
  const lines = [
    `# The \`${MCP_SERVER_NAME}\` MCP server`,
    '',
    'Generated from the tools the ship serves; do not edit by hand.',
    '',
    'Each active workspace has its own endpoint, `POST /workspaces/<repo>/<name>/mcp` on its ship (stateless',
    'Streamable HTTP: JSON or event-stream answers, no session id). It is bound to that workspace: no tool takes',
    'a repository or workspace name. The session finds its credential in `SVC_MCP_TOKEN` (sent as',
    "`Authorization: Bearer`), and `svc agent mcp-config` writes each harness's configuration for it",
    '([cli.md](cli.md)). Results are `structuredContent` plus a one-line text summary; a failure is a tool',
    'error (`isError: true`) carrying the message. The repository tools go through the bridge connected to the',
    "ship, to the repository's forge.",
    '',
    '## Instructions the server gives agents',
    '',
    '```text',
    MCP_INSTRUCTIONS,
    '```',
    '',
  ];
  for (const tool of MCP_TOOLS) {
    lines.push(
      `## \`${tool.name}\``,
      '',
      tool.description,
      '',
      `Annotations: \`${JSON.stringify(tool.annotations)}\``,
      '',
      'Input:',
      '',
      '```json',
      schema(tool.input),
      '```',
      '',
      'Output:',
      '',
      '```json',
      schema(tool.output),
      '```',
      '',
    );
  }
  return lines.join('\n');
}

it('docs/mcp.md describes every tool the ship serves', () => {
  const text = render();
  if (process.env.SVC_UPDATE_DOCS === '1') writeFileSync(FILE, text);
  expect(
    text,
    'docs/mcp.md is stale: rewrite it with SVC_UPDATE_DOCS=1 npx vitest run test/docs/mcp-tools.test.ts',
  ).toBe(readFileSync(FILE, 'utf8'));
});
