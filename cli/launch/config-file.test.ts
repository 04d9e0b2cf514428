// The launch configuration loader: every problem at once with file:line:column and key path, secrets from
// the sibling file and ${VAR} from the environment, the cross-field rules, warnings, and the scaffold that
// `svc launch init` writes loading clean.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LaunchConfigError, loadLaunchConfig } from './config-file.js';
import { planFromConfig } from './plan.js';
import { launchScaffold } from './scaffold.js';
import { defaultPlan } from './plan.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-test-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function write(text: string, secrets?: string): string {
  const sub = join(dir, String(count++));
  rmSync(sub, { recursive: true, force: true });
  mkdirSync(sub);
  const file = join(sub, 'svc.yaml');
  writeFileSync(file, text);
  if (secrets !== undefined) writeFileSync(join(sub, 'svc.secrets'), secrets);
  return file;
}

function problems(file: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    loadLaunchConfig(file, env);
  } catch (error) {
    if (error instanceof LaunchConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected problems');
}

describe('launch configuration', () => {
  it('reports every schema problem at once, in file order, with positions and key paths', () => {
    const file = write(
      [
        'bridge:',
        '  port: "4800"',
        '  colour: blue',
        'ships:',
        '  a:',
        '    source: lokal',
        '  b:',
        '    port: 99999',
        'extra: 1',
        '',
      ].join('\n'),
    );
    expect(problems(file)).toEqual([
      `${file}:2:3: bridge.port: expected an integer`,
      `${file}:3:3: bridge.colour: unknown key`,
      `${file}:6:5: ships.a.source: expected one of "local", "remote"`,
      `${file}:7:3: ships.b.source: required`,
      `${file}:8:5: ships.b.port: expected a number ≤ 65535`,
      `${file}:9:1: extra: unknown key`,
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    const file = write('bridge:\n  port: [1, 2\n');
    const found = problems(file);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: `));
  });

  it("takes a local ship's sessionEnv with secrets, and refuses SVC_* names and a remote ship's", () => {
    const text = [
      'ships:',
      '  a:',
      '    source: local',
      '    sessionEnv:',
      '      ANTHROPIC_API_KEY: secrets:ANTHROPIC_API_KEY',
      '      HTTPS_PROXY: ${PROXY}',
      '      SVC_BRIDGE_TOKEN: leaked',
      '  b:',
      '    source: remote',
      '    url: https://ship.example.com',
      '    sessionEnv:',
      '      GH_TOKEN: x',
      '',
    ].join('\n');
    const file = write(text, 'ANTHROPIC_API_KEY=sk-test\n');
    expect(problems(file, { PROXY: 'http://proxy:3128' })).toEqual([
      `${file}:7:7: ships.a.sessionEnv.SVC_BRIDGE_TOKEN: SVC_BRIDGE_TOKEN: the ship's own SVC_* variables (its tokens and settings) never reach a session`,
      `${file}:11:5: ships.b.sessionEnv: only for local ships (a remote ship takes SVC_SESSION_ENV from its own environment)`,
    ]);
    const good = write(
      text.replace(/ {6}SVC_BRIDGE_TOKEN: leaked\n/, '').replace(/ {2}b:[\s\S]*$/, ''),
      'ANTHROPIC_API_KEY=sk-test\n',
    );
    const { config } = loadLaunchConfig(good, { PROXY: 'http://proxy:3128' });
    expect(config.ships!.a!.sessionEnv).toEqual({ ANTHROPIC_API_KEY: 'sk-test', HTTPS_PROXY: 'http://proxy:3128' });
  });

  it('resolves secrets:<VAR> from svc.secrets and ${VAR} from the environment, and names a missing or empty one', () => {
    const text = [
      'ships:',
      '  a:',
      '    source: local',
      '    shipToken: secrets:A_SHIP',
      '    bridgeToken: ${A_BRIDGE}',
      '  b:',
      '    source: local',
      '    port: 4711',
      '    shipToken: secrets:MISSING',
      '    bridgeToken: ${EMPTY}',
      '',
    ].join('\n');
    const file = write(text, 'A_SHIP=ship-secret\n');
    const secretsFile = join(file, '..', 'svc.secrets');
    expect(problems(file, { A_BRIDGE: 'bridge-secret', EMPTY: '' })).toEqual([
      `${file}:9:5: ships.b.shipToken: secrets:MISSING is not set in ${secretsFile}`,
      `${file}:10:5: ships.b.bridgeToken: \${EMPTY} is empty in the environment`,
    ]);
    const good = write(
      text.replace('secrets:MISSING', 'secrets:A_SHIP').replace('${EMPTY}', 'literal'),
      'A_SHIP=ship-secret\n',
    );
    const { config } = loadLaunchConfig(good, { A_BRIDGE: 'bridge-secret' });
    expect(config.ships!.a).toMatchObject({ shipToken: 'ship-secret', bridgeToken: 'bridge-secret' });
  });

  it('checks the cross-field rules', () => {
    const file = write(
      [
        'ships:',
        '  half:',
        '    source: local',
        '    shipToken: only-one',
        '  far:',
        '    source: remote',
        '    port: 4701',
        '  near:',
        '    source: local',
        '    url: http://x:4700',
        '  "a/b":',
        '    source: local',
        '  twin1:',
        '    source: local',
        '    name: twin',
        '    port: 4800',
        '  twin2:',
        '    source: local',
        '    name: twin',
        '',
      ].join('\n'),
    );
    expect(problems(file)).toEqual([
      `${file}:4:5: ships.half.shipToken: shipToken and bridgeToken are given together or not at all`,
      `${file}:5:3: ships.far.url: required for a remote ship`,
      `${file}:7:5: ships.far.port: only for local ships (a remote ship names itself)`,
      `${file}:10:5: ships.near.url: only for remote ships`,
      `${file}:11:3: ships.a/b: expected an identifier as the ship name (must not contain path separators)`,
      `${file}:16:5: ships.twin1.port: port 4800 is also used by bridge.port`,
      `${file}:19:5: ships.twin2.name: ship name "twin" is also used by ships.twin1`,
    ]);
  });

  it('warns about legal but likely wrong settings', () => {
    const file = write(
      [
        'bridge:',
        '  publicUrl: ftp://bridge',
        'ships:',
        '  far:',
        '    source: remote',
        '    url: http://10.0.0.5:4700',
        '',
      ].join('\n'),
    );
    expect(loadLaunchConfig(file, {}).warnings).toEqual([
      `${file}:2:3: bridge.publicUrl: is not an http(s) URL: ships and browsers will not reach the bridge there`,
      `${file}:6:5: ships.far.url: plain http to another host: the bridge token travels unencrypted`,
    ]);
    const noPublic = write(['ships:', '  far:', '    source: remote', '    url: https://far:4700', ''].join('\n'));
    expect(loadLaunchConfig(noPublic, {}).warnings).toEqual([
      `${noPublic}:1:1: bridge.publicUrl: not set while remote ships are configured: they will be told http://localhost:<port>, which they cannot reach`,
    ]);
  });

  it('accepts the scaffold `svc launch init` writes, and plans from it the local ship a launch without a file runs', () => {
    const file = write(launchScaffold('my-host.example'));
    const loaded = loadLaunchConfig(file, {});
    expect(loaded.warnings).toEqual([]);
    const plan = planFromConfig(loaded.config, loaded.directory);
    expect(plan.bridge).toMatchObject({
      port: 4800,
      name: 'bridge',
      insecureNoAuth: false,
      dataDirectory: join(loaded.directory, '.svc/bridge'),
    });
    expect(plan.localShips).toEqual([
      {
        key: 'local',
        name: 'my-host.example',
        fleetDirectory: join(loaded.directory, '.svc/fleet'),
        port: 4700,
        tokens: null,
        sessionEnv: {},
      },
    ]);
    // The same ship as with no file (issue #15 item 7): the scaffold only writes it out.
    const zero = defaultPlan(loaded.directory);
    expect(
      planFromConfig(loadLaunchConfig(write(launchScaffold(zero.localShips[0]!.name)), {}).config, loaded.directory)
        .localShips,
    ).toEqual(zero.localShips);
    expect(plan.bridge).toMatchObject({ dataDirectory: zero.bridge.dataDirectory, port: zero.bridge.port });
    expect(plan.remoteShips).toEqual([]);
  });

  it('reads an empty file as the defaults', () => {
    expect(loadLaunchConfig(write(''), {}).config).toEqual({});
  });
});
