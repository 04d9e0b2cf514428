// The merge of svc's entry into a harness file: TOML by replacing or appending only the table's text (its
// sub-tables included), validated by re-parsing; JSONC by path edits. Comments elsewhere survive.
import { expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { mergeJsonc, mergeToml } from './config-files.js';

const TABLE = ['mcp_servers', 'svc-agent'];
const value = {
  url: 'http://localhost:7/workspaces/a/b/mcp',
  bearer_token_env_var: 'SVC_MCP_TOKEN',
  tools: { agent_status: { approval_mode: 'approve' } },
};

it('replaces an existing table and its sub-tables in place, keeping comments around it', () => {
  const text =
    '# head\n[mcp_servers."svc-agent"] # old\nurl = "http://old"\n[mcp_servers.svc-agent.tools.x]\napproval_mode = "prompt"\n\n# about z\n[z]\nq = 1 # q\n';
  const merged = mergeToml(text, TABLE, value, 'f');
  expect(merged.startsWith('# head\n[mcp_servers.svc-agent]\n')).toBe(true);
  expect(merged.endsWith('\n\n# about z\n[z]\nq = 1 # q\n')).toBe(true);
  expect((parseToml(merged) as any).mcp_servers['svc-agent']).toEqual(value);
  expect(mergeToml(merged, TABLE, value, 'f')).toBe(merged);
});

it('appends to an empty or comment-only file', () => {
  expect(mergeToml('', TABLE, value, 'f').startsWith('[mcp_servers.svc-agent]\n')).toBe(true);
  const merged = mergeToml('# only a comment', TABLE, value, 'f');
  expect(merged.startsWith('# only a comment\n\n[mcp_servers.svc-agent]\n')).toBe(true);
});

it('refuses (writes nothing) when the table is written inline or with dotted keys, and on invalid TOML', () => {
  expect(() => mergeToml('mcp_servers = { svc-agent = { url = "x" } }\n', TABLE, value, 'f')).toThrow(
    /merge the printed table by hand/,
  );
  expect(() => mergeToml('[mcp_servers]\nsvc-agent.url = "x"\n', TABLE, value, 'f')).toThrow(
    /merge the printed table by hand/,
  );
  expect(() => mergeToml('[broken\n', TABLE, value, 'f')).toThrow(/f is not valid TOML/);
});

it('JSONC: sets a nested entry, unions an array, keeps comments; unchanged when already there', () => {
  const text = '// mine\n{ "a": [1], /* b */ "list": ["x"] }\n';
  const entries = [
    { path: ['p', 'q'], value: { k: 1 } },
    { path: ['list'], value: ['x', 'y'], union: true },
  ];
  const merged = mergeJsonc(text, entries, 'f');
  expect(merged).toContain('// mine');
  expect(merged).toContain('/* b */');
  expect(JSON.parse(merged.replace(/\/\/.*|\/\*.*?\*\//g, ''))).toEqual({
    a: [1],
    list: ['x', 'y'],
    p: { q: { k: 1 } },
  });
  expect(mergeJsonc(merged, entries, 'f')).toBe(merged);
  expect(() => mergeJsonc('{ "a": ', entries, 'f')).toThrow(/f is not valid JSON/);
});
