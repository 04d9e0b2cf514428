// `--check`: connects to the workspace's MCP endpoint the way a harness would with its entry (URL and headers
// resolved from this shell's variables by the harness's own rules), runs initialize, tools/list and
// agent_status_get, and returns the tool names as the model sees them. A refusal becomes an error that says
// how to fix it: 401 means the session's token is not the ship's current one (deactivate/activate rotates it),
// 404 a workspace the ship does not have, an inactive workspace needs activating.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HarnessPlan } from './harnesses.js';
import type { WorkspaceLocation } from './workspace-discovery.js';
import { SVC_VERSION } from '../../protocol/version.js';

export const FIX_TOKEN = 'restart the session so the ship injects a fresh token';
export const FIX_ACTIVATE = 'activate the workspace';

export async function checkHarness(
  plan: HarnessPlan,
  workspace: WorkspaceLocation,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const { url, headers } = plan.connection(env);
  const where = `${workspace.repo}/${workspace.name}`;
  // The shared entries build the URL from the session's variables: they must still name this workspace's ship.
  if (url !== workspace.mcpUrl) {
    throw new Error(
      `${plan.harness}: the session's variables point at ${url}, but this workspace's ship serves ${workspace.mcpUrl}: ${FIX_TOKEN}`,
    );
  }
  const client = new Client({ name: `svc-check-${plan.harness}`, version: SVC_VERSION });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const status = await client.callTool({ name: 'agent_status_get', arguments: {} });
    if (status.isError) {
      const text = JSON.stringify(status.content);
      if (/not active/i.test(text)) throw new Error(`${plan.harness}: ${where} is not active: ${FIX_ACTIVATE}`);
      throw new Error(`${plan.harness}: agent_status_get failed: ${text}`);
    }
    return tools.map((tool) => plan.toolName(tool.name));
  } catch (error) {
    if (error instanceof StreamableHTTPError) {
      if (error.code === 401)
        throw new Error(`${plan.harness}: the ship refused the session's token for ${where} (401): ${FIX_TOKEN}`);
      if (error.code === 404)
        throw new Error(
          `${plan.harness}: the ship at ${url} has no workspace ${where} (404): ${FIX_ACTIVATE}, or run this in the workspace's own session`,
        );
      throw new Error(`${plan.harness}: the ship answered ${error.code}: ${error.message}`);
    }
    if (error instanceof TypeError && /fetch failed/.test(error.message)) {
      throw new Error(`${plan.harness}: cannot reach the ship at ${url}: is \`svc ship\` running?`);
    }
    throw error;
  } finally {
    await client.close().catch(() => undefined);
  }
}
