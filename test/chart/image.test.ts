// What can be checked of the container image without a container engine (none runs here): the
// Dockerfile's shape (multi-stage, Node 24 slim, the packages, ssh and a pinned, checksummed gh, the fixed
// user, tini and `svc` as the entrypoint, OCI labels), that the build copies every component tsc
// compiles, that .dockerignore keeps dependencies, build output, git and test artifacts out, and that what
// the chart runs in that image — commands of its containers, the directories it writes — exists in the
// image's layout. Dockerfile.agents, and building both where an engine answers: test/image/agents-image.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASES, caseObjects, helmAvailable, ROOT, type KubeObject } from './render.js';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
/** Instructions with continuation lines joined and runs of blanks as one space. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim().replace(/\s+/g, ' '))
  .filter((line) => line && !line.startsWith('#'));
const stages: string[][] = [];
for (const line of instructions) {
  if (line.startsWith('FROM ')) stages.push([line]);
  else stages.at(-1)?.push(line);
}
const runtime = stages.at(-1)!;

/** Packages the runtime stage installs with apt-get. */
const aptPackages = runtime
  .filter((line) => line.startsWith('RUN '))
  .flatMap(
    (line) =>
      /apt-get install ([^&]+)/
        .exec(line)?.[1]
        ?.split(/\s+/)
        .filter((word) => word && !word.startsWith('-')) ?? [],
  );
/** Directories the runtime stage creates for the svc user (install -d -o 10001 …), plus its home. */
const ownedDirectories = [
  ...runtime.flatMap(
    (line) => /install -d -o 10001 -g 10001 -m \d+ ([^&]+)/.exec(line)?.[1]?.trim().split(/\s+/) ?? [],
  ),
  ...runtime.flatMap((line) =>
    /useradd .*--home-dir (\S+) .*--create-home/.exec(line) ? [/--home-dir (\S+)/.exec(line)![1]!] : [],
  ),
];
/** Commands a Debian slim image has without installing anything (essential packages; dash builtins). */
const BASE_COMMANDS = new Set([
  'sh',
  'mkdir',
  'chown',
  'chmod',
  'cp',
  'rm',
  'ls',
  'cat',
  'install',
  'tar',
  'node',
  'set',
  '[',
  'continue',
  'for',
  'do',
  'done',
  'if',
  'then',
  'fi',
]);

describe('the Dockerfile', () => {
  it('builds in stages on Node 24 slim: compile with dev dependencies, run with production ones only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(instructions[0]).toBe('ARG NODE_IMAGE=node:24-bookworm-slim');
    for (const stage of stages) expect(stage[0]).toMatch(/^FROM \$\{NODE_IMAGE\}/);
    const build = stages.find((stage) => stage[0]!.endsWith('AS build'))!;
    expect(build).toContain('RUN npm ci --ignore-scripts --no-audit --no-fund');
    expect(build.some((line) => /^RUN npx tsc -p tsconfig\.json( |$)/.test(line))).toBe(true);
    const deps = stages.find((stage) => stage[0]!.endsWith('AS deps'))!;
    expect(deps).toContain('RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund');
    expect(runtime).toContain('COPY --from=deps /src/node_modules node_modules');
    expect(runtime).toContain('COPY --from=build /src/dist dist');
    expect(runtime.some((line) => /npm (ci|install)/.test(line))).toBe(false);
  });

  it('copies every component tsc compiles into the build stage', () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    const build = stages.find((stage) => stage[0]!.endsWith('AS build'))!;
    // bench/ is compiled for development only; the image carries the five runtime components.
    for (const component of tsconfig.include.filter((dir) => dir !== 'bench')) {
      expect(build, `the build stage does not COPY ${component}`).toContain(`COPY ${component} ${component}`);
      expect(dockerignore, `.dockerignore drops ${component}, which the build needs`).not.toContain(component);
    }
  });

  it('builds the GUI into dist/web (served by the bridge at /ui/), which the runtime stage copies with dist', () => {
    const build = stages.find((stage) => stage[0]!.endsWith('AS build'))!;
    expect(build).toContain('COPY web web');
    expect(build.some((line) => /^RUN (.* && )?npx vite build --config web\/vite\.config\.ts( |$)/.test(line))).toBe(
      true,
    );
    expect(dockerignore, '.dockerignore drops web, which the build needs').not.toContain('web');
    expect(runtime).toContain('COPY --from=build /src/dist dist');
  });

  it('installs git, tmux, ca-certificates, openssh-client and tini, with a UTF-8 locale', () => {
    expect([...aptPackages].sort()).toEqual(['ca-certificates', 'git', 'openssh-client', 'tini', 'tmux']);
    expect(runtime.find((line) => line.startsWith('ENV '))).toMatch(/LANG=C\.UTF-8 +LC_ALL=C\.UTF-8/);
  });

  it("installs gh from its release tarball at a pinned version, checked against that version's sha256", () => {
    // Debian bookworm's gh is years old: not from apt, and no third-party apt source in the image.
    expect(aptPackages).not.toContain('gh');
    expect(runtime.some((line) => /sources\.list|keyrings/.test(line))).toBe(false);
    const gh = stages.find((stage) => stage[0] === 'FROM ${NODE_IMAGE} AS gh');
    expect(gh, 'no `FROM ${NODE_IMAGE} AS gh` stage').toBeDefined();
    const arg = (name: string) => gh!.find((line) => line.startsWith(`ARG ${name}=`))?.slice(`ARG ${name}=`.length);
    expect(arg('GH_VERSION')).toMatch(/^\d+\.\d+\.\d+$/);
    expect(arg('GH_SHA256_AMD64')).toMatch(/^[0-9a-f]{64}$/);
    expect(arg('GH_SHA256_ARM64')).toMatch(/^[0-9a-f]{64}$/);
    expect(arg('GH_SHA256_AMD64')).not.toBe(arg('GH_SHA256_ARM64'));
    expect(gh).toContain('ARG TARGETARCH');
    const run = gh!.filter((line) => line.startsWith('RUN '));
    expect(run).toHaveLength(1);
    // The download is the pinned version for the build's architecture, and nothing is unpacked unchecked.
    expect(run[0]).toContain(
      'https://github.com/cli/cli/releases/download/v${GH_VERSION}/gh_${GH_VERSION}_linux_${TARGETARCH}.tar.gz',
    );
    expect(run[0]).toMatch(
      /amd64\) sha256="\$\{GH_SHA256_AMD64\}" ;; arm64\) sha256="\$\{GH_SHA256_ARM64\}" ;; \*\) .*exit 1 ;;/,
    );
    const steps = run[0]!.split(' && ');
    const checked = steps.findIndex((step) => /^sha256sum -c /.test(step));
    const unpacked = steps.findIndex((step) => /^tar -xzf gh\.tar\.gz /.test(step));
    expect(checked, 'the RUN never runs sha256sum -c').toBeGreaterThan(0);
    expect(unpacked, 'tar runs before the checksum is checked').toBeGreaterThan(checked);
    expect(runtime).toContain('COPY --from=gh /gh/bin/gh /usr/local/bin/gh');
  });

  it('runs as a fixed non-root user, with tini as PID 1 and svc as the entrypoint', () => {
    expect(runtime.join('\n')).toMatch(/groupadd --gid 10001 svc/);
    expect(runtime.join('\n')).toMatch(/useradd --uid 10001 --gid 10001 /);
    expect(runtime).toContain('USER 10001:10001');
    expect(runtime).toContain('RUN ln -s /app/bin/svc.js /usr/local/bin/svc');
    expect(runtime).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "svc"]');
  });

  it('creates the directories svc writes to for its user', () => {
    expect(ownedDirectories).toEqual(['/var/lib/svc', '/var/lib/svc/bridge', '/var/lib/svc/fleet', '/home/svc']);
    expect(runtime.find((line) => line.startsWith('ENV '))).toContain('HOME=/home/svc');
  });

  it('carries OCI labels', () => {
    const labels = runtime.filter((line) => line.startsWith('LABEL ')).join(' ');
    for (const label of ['title', 'description', 'version', 'licenses'])
      expect(labels).toContain(`org.opencontainers.image.${label}=`);
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, build output, git, CI and test artifacts out of the build context', () => {
    for (const entry of ['node_modules', 'dist', '.git', '.ci', 'test', 'coverage', '**/*.test.ts', '*.log'])
      expect(dockerignore).toContain(entry);
  });

  it('ignores everything .gitignore ignores (local state never reaches an image)', () => {
    const gitignore = readFileSync(join(ROOT, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    for (const entry of gitignore)
      expect(dockerignore, `.gitignore has ${entry}`).toContain(entry.replace(/^\/|\/$/g, ''));
  });
});

type Json = Record<string, any>;

/** The containers of the rendered workloads that run the svc image. */
function svcContainers(objects: KubeObject[]): { at: string; container: Json; init: boolean }[] {
  return objects
    .filter((object) => ['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind))
    .flatMap((object) => {
      const pod = (object.spec as Json).template.spec;
      return [
        ...(pod.initContainers ?? []).map((container: Json) => ({
          at: `${object.kind} ${object.metadata.name} init ${container.name}`,
          container,
          init: true,
        })),
        ...pod.containers.map((container: Json) => ({
          at: `${object.kind} ${object.metadata.name} ${container.name}`,
          container,
          init: false,
        })),
      ].filter(({ container }) => /(^|\/)svc:/.test(container.image));
    });
}

/** The commands a `sh -c` script runs (first word of each simple command). */
function scriptCommands(script: string): string[] {
  return script
    .split(/\n|&&|\|\||;|\|/)
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

describe.skipIf(!helmAvailable('test/chart/image.test.ts'))('what the chart runs in the image exists there', () => {
  it.each(CASES)('%s', async (name) => {
    const problems: string[] = [];
    for (const { at, container, init } of svcContainers(await caseObjects(name))) {
      const command: string[] = container.command ?? [];
      if (command.length) {
        const binaries =
          command[0] === 'sh' && command[1] === '-c' ? ['sh', ...scriptCommands(command[2]!)] : [command[0]!];
        for (const binary of binaries)
          if (!BASE_COMMANDS.has(binary) && !aptPackages.includes(binary) && binary !== 'svc')
            problems.push(`${at}: runs ${binary}, which the image does not have`);
      } else if (!['bridge', 'ship', 'operator', 'session-holder'].includes(container.args?.[0])) {
        problems.push(`${at}: the entrypoint svc gets ${container.args?.[0]}, not a server subcommand`);
      }
      if (init) continue;
      // The root filesystem is read-only: every directory svc writes to is a volume, on a path the image
      // creates for its user. A read-only mount (the ship's projected token) is never written.
      for (const mount of container.volumeMounts ?? []) {
        if (mount.mountPath !== '/tmp' && !mount.readOnly && !ownedDirectories.includes(mount.mountPath))
          problems.push(`${at}: mounts ${mount.mountPath}, which the image does not create for UID 10001`);
      }
      const args: string[] = container.args ?? [];
      for (const flag of ['--data-directory', '--fleet-directory']) {
        const index = args.indexOf(flag);
        if (
          index >= 0 &&
          !(container.volumeMounts ?? []).some(
            (mount: Json) => args[index + 1] === mount.mountPath || args[index + 1]!.startsWith(`${mount.mountPath}/`),
          )
        )
          problems.push(`${at}: ${flag} ${args[index + 1]} is not on a volume`);
      }
    }
    expect(problems).toEqual([]);
  });
});
