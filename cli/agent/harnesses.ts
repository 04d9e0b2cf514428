// What each agent harness needs to reach a workspace's MCP endpoint (docs/mcp.md), as data: the file
// `--write` merges into, the entries it sets there, and how the harness turns the entry into a request
// (`--check` connects the same way). Pure: no I/O; paths come in through `HarnessContext`.
//
// The token is never written: each entry names SVC_MCP_TOKEN in the harness's own syntax. One user-scope
// file serves every workspace of the user, so the entries in shared files build the URL from the variables
// the ship injects into each session (SVC_SHIP_URL, SVC_WORKSPACE) and stay the same for all workspaces.
// Copilot CLI drops an entry whose `url` is not a URL as written, so its origin is the ship's, literal (the
// entry is then the same for every workspace of this ship). Claude's entry is per project path (local scope),
// and Codex does not expand variables in `url`, so it gets a project file in the workspace: both carry the
// literal URL found through atlas.json. DECISIONS.md records it.
import { join } from 'node:path';
import { HARNESSES, type Harness } from '../../protocol/agent-harnesses.js';

export { HARNESSES, type Harness };

export const SERVER_NAME = 'svc-agent';
export const TOKEN_VARIABLE = 'SVC_MCP_TOKEN';
/** The status tools pre-approved where a harness can approve single tools. */
export const STATUS_TOOLS = ['agent_init', 'agent_status', 'agent_status_get'] as const;

export interface HarnessContext {
  home: string;
  /** $XDG_CONFIG_HOME or ~/.config. */
  configHome: string;
  workspaceDir: string;
  /** The literal MCP URL of this workspace (from atlas.json). */
  mcpUrl: string;
}

/** One value to set in a JSON(C) file; `union` adds the listed strings to an array and keeps what is there. */
export interface JsonEntry {
  path: string[];
  value: unknown;
  union?: boolean;
}

export type HarnessFile =
  | { format: 'json'; path: string; entries: JsonEntry[] }
  | { format: 'toml'; path: string; table: string[]; value: Record<string, unknown> };

export interface HarnessPlan {
  harness: Harness;
  file: HarnessFile;
  /** Where the entry lives, for people. */
  scope: string;
  /** The file is inside the workspace: `--write` adds it to .git/info/exclude. */
  inWorkspace: boolean;
  /** The URL and headers the harness sends, with variable references resolved from `env` its way. */
  connection(env: NodeJS.ProcessEnv): { url: string; headers: Record<string, string> };
  /** A tool name as the model sees it in this harness. */
  toolName(tool: string): string;
}

const bearer = (reference: string) => ({ Authorization: `Bearer ${reference}` });

/** `${VAR}` (and `${VAR:-default}`) as Claude Code, Copilot CLI and Gemini CLI expand them in strings. */
export function expandDollar(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) =>
    variable(env, name, fallback),
  );
}

/** `{env:VAR}` as opencode substitutes it. */
export function expandOpencode(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => variable(env, name));
}

function variable(env: NodeJS.ProcessEnv, name: string, fallback?: string): string {
  const found = env[name];
  if (found !== undefined && found !== '') return found;
  if (fallback !== undefined) return fallback;
  throw new Error(
    `${name} is not set in this shell: run this in the workspace's session (the ship sets it when it activates the workspace)`,
  );
}

const expandAll = (headers: Record<string, string>, expand: (text: string) => string) =>
  Object.fromEntries(Object.entries(headers).map(([key, text]) => [key, expand(text)]));

export function planFor(harness: Harness, context: HarnessContext): HarnessPlan {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} for the harness to expand, not for JavaScript
  const sharedUrlDollar = '${SVC_SHIP_URL}/workspaces/${SVC_WORKSPACE}/mcp';
  switch (harness) {
    case 'claude-code': {
      // Local scope: ~/.claude.json under the project's path, read only when claude runs in this workspace.
      const headers = bearer(`\${${TOKEN_VARIABLE}}`);
      const project = ['projects', context.workspaceDir];
      return {
        harness,
        scope: `local scope (projects["${context.workspaceDir}"])`,
        inWorkspace: false,
        file: {
          format: 'json',
          path: join(context.home, '.claude.json'),
          entries: [
            { path: [...project, 'mcpServers', SERVER_NAME], value: { type: 'http', url: context.mcpUrl, headers } },
            {
              path: [...project, 'allowedTools'],
              value: STATUS_TOOLS.map((tool) => `mcp__${SERVER_NAME}__${tool}`),
              union: true,
            },
          ],
        },
        connection: (env) => ({
          url: expandDollar(context.mcpUrl, env),
          headers: expandAll(headers, (text) => expandDollar(text, env)),
        }),
        toolName: (tool) => `mcp__${SERVER_NAME}__${tool}`,
      };
    }
    case 'codex': {
      // `url` is taken literally and ~/.codex/config.toml is shared, so the workspace's own project file.
      const value: Record<string, unknown> = {
        url: context.mcpUrl,
        bearer_token_env_var: TOKEN_VARIABLE,
        tools: Object.fromEntries(STATUS_TOOLS.map((tool) => [tool, { approval_mode: 'approve' }])),
      };
      return {
        harness,
        scope: 'project file of this workspace (Codex reads it once the project is trusted)',
        inWorkspace: true,
        file: {
          format: 'toml',
          path: join(context.workspaceDir, '.codex', 'config.toml'),
          table: ['mcp_servers', SERVER_NAME],
          value,
        },
        connection: (env) => ({ url: context.mcpUrl, headers: bearer(variable(env, TOKEN_VARIABLE)) }),
        // A session offers the server's tools to the model in a namespace named with `-` made `_`.
        toolName: (tool) => `mcp__${SERVER_NAME.replaceAll('-', '_')}__${tool}`,
      };
    }
    case 'opencode': {
      const url = '{env:SVC_SHIP_URL}/workspaces/{env:SVC_WORKSPACE}/mcp';
      const headers = bearer(`{env:${TOKEN_VARIABLE}}`);
      return {
        harness,
        scope: 'user scope (URL from the session variables)',
        inWorkspace: false,
        file: {
          format: 'json',
          path: join(context.configHome, 'opencode', 'opencode.json'),
          entries: [
            { path: ['mcp', SERVER_NAME], value: { type: 'remote', url, headers, oauth: false, enabled: true } },
          ],
        },
        connection: (env) => ({
          url: expandOpencode(url, env),
          headers: expandAll(headers, (text) => expandOpencode(text, env)),
        }),
        toolName: (tool) => `${SERVER_NAME}_${tool}`,
      };
    }
    case 'copilot': {
      // Copilot CLI (1.0.102) expands ${VAR} in headers and in the URL's path when a session connects, but
      // silently skips an entry whose `url` does not parse as written: `${SVC_SHIP_URL}/…` never reached
      // `copilot mcp list` nor a session (test/cli/harness-reads-config.test.ts). So the ship's origin is
      // literal and only the workspace comes from the session.
      const url = `${new URL(context.mcpUrl).origin}/workspaces/\${SVC_WORKSPACE}/mcp`;
      const headers = bearer(`\${${TOKEN_VARIABLE}}`);
      return {
        harness,
        scope: "user scope (this ship's URL, the workspace from the session variables)",
        inWorkspace: false,
        file: {
          format: 'json',
          path: join(context.home, '.copilot', 'mcp-config.json'),
          entries: [{ path: ['mcpServers', SERVER_NAME], value: { type: 'http', url, headers, tools: ['*'] } }],
        },
        connection: (env) => ({
          url: expandDollar(url, env),
          headers: expandAll(headers, (text) => expandDollar(text, env)),
        }),
        toolName: (tool) => `${SERVER_NAME}-${tool}`,
      };
    }
    case 'gemini': {
      const headers = bearer(`\${${TOKEN_VARIABLE}}`);
      return {
        harness,
        // Gemini CLI ignores every MCP server (user-level ones too) in a folder the user has not trusted.
        scope: 'user scope (URL from the session variables; Gemini uses it in trusted folders)',
        inWorkspace: false,
        file: {
          format: 'json',
          path: join(context.home, '.gemini', 'settings.json'),
          // trust: Gemini approves per server only, so this covers all of svc's tools.
          entries: [{ path: ['mcpServers', SERVER_NAME], value: { httpUrl: sharedUrlDollar, headers, trust: true } }],
        },
        connection: (env) => ({
          url: expandDollar(sharedUrlDollar, env),
          headers: expandAll(headers, (text) => expandDollar(text, env)),
        }),
        toolName: (tool) => `mcp_${SERVER_NAME}_${tool}`,
      };
    }
  }
}
