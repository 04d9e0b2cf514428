// Dockerfile.agents, the example image that layers the agent CLIs on the svc image (README, "Container
// image"; docs/DECISIONS.md, "Agent CLIs: an example image on top of the svc image"). Without a container
// engine: it installs exactly the packages .ci/run pins in `harness_packages` (both files parsed, so either
// changing alone fails), each CLI is one of the harnesses svc wires (protocol/agent-harnesses.ts), it FROMs
// an ARG-selected svc image and ends as the svc image's user. Where `docker info` or `podman info` answers,
// it builds the svc image and then this one and runs every CLI, gh and ssh inside; elsewhere (here, and
// CI: no engine runs) that test is skipped, saying so in its name.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HARNESSES, type Harness } from '../../protocol/agent-harnesses.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A Dockerfile's instructions: continuation lines joined, blanks squeezed, comments and blank lines dropped. */
function instructionsOf(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line && !line.startsWith('#'));
}

/** The words of .ci/run's `harness_packages=(…)` array (exactly one such line). */
function ciHarnessPackages(script: string): string[] {
  const lines = [...script.matchAll(/^\s*harness_packages=\(([^)]*)\)\s*$/gm)];
  expect(lines, '.ci/run has no single `harness_packages=(…)` line').toHaveLength(1);
  return lines[0]![1]!.trim().split(/\s+/);
}

/** npm options in the install line that take a value (the value is not a package). */
const NPM_VALUE_OPTIONS = new Set(['--cache', '--prefix', '--registry', '--userconfig']);

/** The packages of the `npm install --global …` step in `run` (a RUN instruction's shell text). */
function npmGlobalInstall(run: string): string[] {
  const step = run
    .replace(/^RUN /, '')
    .split(/ && | ; /)
    .find((part) => /^npm (install|i) /.test(part) && / (--global|-g)( |$)/.test(part));
  if (!step) return [];
  const words = step.split(' ').slice(2);
  const packages: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (NPM_VALUE_OPTIONS.has(word)) index++;
    else if (!word.startsWith('-')) packages.push(word);
  }
  return packages;
}

/** Each harness CLI package: the harness svc wires for it and the command it installs. */
const CLIS: Record<string, { harness: Harness; command: string }> = {
  '@anthropic-ai/claude-code': { harness: 'claude-code', command: 'claude' },
  '@openai/codex': { harness: 'codex', command: 'codex' },
  'opencode-ai': { harness: 'opencode', command: 'opencode' },
  '@google/gemini-cli': { harness: 'gemini', command: 'gemini' },
  '@github/copilot': { harness: 'copilot', command: 'copilot' },
};

/** `name@1.2.3` → [name, 1.2.3] (scoped names keep their leading @). */
function splitSpec(spec: string): [string, string] {
  const at = spec.lastIndexOf('@');
  return at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, ''];
}

const ciPackages = ciHarnessPackages(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'));
const agents = instructionsOf(readFileSync(join(ROOT, 'Dockerfile.agents'), 'utf8'));
const svcRuntime = ((lines) => lines.slice(lines.findLastIndex((line) => line.startsWith('FROM '))))(
  instructionsOf(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')),
);

describe('Dockerfile.agents', () => {
  it('installs exactly the harness packages .ci/run pins, each at an exact version', () => {
    const runs = agents.filter((line) => line.startsWith('RUN '));
    const installs = runs.map(npmGlobalInstall).filter((packages) => packages.length);
    expect(installs, 'Dockerfile.agents has no single `npm install --global …` step').toHaveLength(1);
    expect([...installs[0]!].sort()).toEqual([...ciPackages].sort());
    for (const spec of ciPackages)
      expect(splitSpec(spec)[1], `${spec} is not pinned to an exact version`).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('cleans the npm cache in the same RUN that installs', () => {
    const install = agents.find((line) => line.startsWith('RUN ') && npmGlobalInstall(line).length)!;
    const cache = /--cache (\S+)/.exec(install)?.[1];
    expect(cache, 'the install names no --cache directory of its own').toBeDefined();
    expect(install).toContain(`npm cache clean --force --cache ${cache}`);
    expect(install).toMatch(new RegExp(`&& rm -rf ${cache!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}( |$)`));
  });

  it('has a CLI for every harness svc wires, and knows the command of each package', () => {
    const names = ciPackages.map((spec) => splitSpec(spec)[0]);
    for (const name of names) expect(CLIS[name], `no command known for ${name}: add it to CLIS`).toBeDefined();
    expect(names.map((name) => CLIS[name]?.harness).sort()).toEqual([...HARNESSES].sort());
  });

  it("FROMs an ARG-selected svc image and ends as the svc image's user", () => {
    expect(agents[0]).toMatch(/^ARG SVC_IMAGE=svc:\d+\.\d+\.\d+$/);
    expect(agents.filter((line) => line.startsWith('FROM '))).toEqual(['FROM ${SVC_IMAGE}']);
    const users = agents.filter((line) => line.startsWith('USER '));
    expect(users[0], "the install needs root (npm's global prefix)").toBe('USER root');
    expect(agents.at(-1)).toBe('USER 10001:10001');
    expect(svcRuntime.filter((line) => line.startsWith('USER ')).at(-1)).toBe(agents.at(-1));
    // Nothing else changes what the svc image runs.
    expect(agents.filter((line) => /^(ENTRYPOINT|CMD|ENV|WORKDIR) /.test(line))).toEqual([]);
  });

  it("notices a package list that differs from .ci/run's (the comparison can fail)", () => {
    const install = agents.find((line) => line.startsWith('RUN ') && npmGlobalInstall(line).length)!;
    const changed = install.replace(ciPackages[0]!, `${splitSpec(ciPackages[0]!)[0]}@0.0.1`);
    expect([...npmGlobalInstall(changed)].sort()).not.toEqual([...ciPackages].sort());
    expect(npmGlobalInstall(install.replace(ciPackages[0]!, `${ciPackages[0]!} unpinned-extra`))).toContain(
      'unpinned-extra',
    );
    expect(() => ciHarnessPackages('harness_packages=(a@1.0.0)\nharness_packages=(b@1.0.0)\n')).toThrow();
  });
});

/** The container engine that answers here (`<engine> info` exits 0 within 5 s), or null. */
function containerEngine(): string | null {
  for (const engine of ['docker', 'podman']) {
    const probe = spawnSync(engine, ['info'], { stdio: 'ignore', timeout: 5_000 });
    if (probe.status === 0) return engine;
  }
  return null;
}

interface Run {
  code: number;
  output: string;
}

/** `engine args…`, its stdout and stderr together (the last 8 kB, enough to show a failed build's step). */
function run(engine: string, args: string[]): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(engine, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => done({ code: -1, output: String(error) }));
    child.on('close', (code) => done({ code: code ?? -1, output }));
  });
}

const engine = containerEngine();
const tag = `svc-image-test-${process.pid}`;
const svcImage = `localhost/${tag}:svc`;
const agentsImage = `localhost/${tag}:agents`;

describe('the images, built', () => {
  afterAll(async () => {
    if (engine) await run(engine, ['rmi', '--force', agentsImage, svcImage]);
  });

  it.skipIf(!engine)(
    engine
      ? `builds the svc image and Dockerfile.agents with ${engine}; every CLI, gh and ssh answers inside, as UID 10001`
      : 'builds the svc image and Dockerfile.agents and runs the CLIs inside: skipped: no container engine answers here (`docker info` and `podman info` fail)',
    async () => {
      const svc = await run(engine!, ['build', '-t', svcImage, '.']);
      expect(svc.code, `building the svc image failed:\n${svc.output}`).toBe(0);
      const built = await run(engine!, [
        'build',
        '-f',
        'Dockerfile.agents',
        '--build-arg',
        `SVC_IMAGE=${svcImage}`,
        '-t',
        agentsImage,
        '.',
      ]);
      expect(built.code, `building Dockerfile.agents failed:\n${built.output}`).toBe(0);

      const inside = (command: string, ...args: string[]) =>
        run(engine!, ['run', '--rm', '--entrypoint', command, agentsImage, ...args]);
      expect((await inside('id', '-u')).output.trim()).toBe('10001');
      for (const spec of ciPackages) {
        const [name, version] = splitSpec(spec);
        const answer = await inside(CLIS[name]!.command, '--version');
        expect(answer.code, `${CLIS[name]!.command} --version: ${answer.output}`).toBe(0);
        expect(answer.output, `${CLIS[name]!.command} --version does not say ${version}`).toContain(version);
      }
      const ghVersion = /^ARG GH_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]!;
      const gh = await inside('gh', '--version');
      expect(gh.code, gh.output).toBe(0);
      expect(gh.output).toContain(`gh version ${ghVersion}`);
      const ssh = await inside('ssh', '-V');
      expect(ssh.code, ssh.output).toBe(0);
      expect(ssh.output).toMatch(/OpenSSH_/);
      // The svc entrypoint still runs in the agents' image.
      const version = await run(engine!, ['run', '--rm', agentsImage, '--version']);
      expect(version.code, version.output).toBe(0);
    },
    45 * 60_000,
  );
});
