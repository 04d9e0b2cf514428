// What a few values do to the rendered chart (the chart bugs of issue #27, item 4), with the pinned helm:
// `helm template` for the objects, `helm install --dry-run=client` (no cluster) for NOTES.txt.
// - An empty `bridge.publicUrl` with an Ingress means `https://<ingress.host>` (values.yaml, README "Exposing
//   the bridge"), with or without `ingress.tls.secretName`: TLS usually ends at the ingress controller or a
//   load balancer in front of it (docs/DECISIONS.md, "Kubernetes: the image and the chart", Public URL). The
//   bridge's --public-url, the ships' --bridge-url and the notes' login line all carry it.
// - `imagePullSecrets` takes plain names and `{name: …}` objects (the pod spec's form) and reaches every pod
//   the chart renders, the bundled PostgreSQL's included; values.schema.json refuses anything else.
// - The notes tell how to uninstall without leaving Ships and Repos stuck on the operator's finalizer
//   (README "Upgrading, CRDs and uninstalling").
import { describe, expect, it } from 'vitest';
import { FINALIZER } from '../../operator/resources/index.js';
import { CHART, helm, helmAvailable, NAMESPACE, parseObjects, RELEASE, template, type KubeObject } from './render.js';

type Json = Record<string, any>;

const haveHelm = helmAvailable('test/chart/values-effects.test.ts');

function setArgs(set: string[], setJson: string[] = []): string[] {
  return [...set.flatMap((value) => ['--set', value]), ...setJson.flatMap((value) => ['--set-json', value])];
}

async function render(set: string[], setJson: string[] = []): Promise<KubeObject[]> {
  const run = await template(setArgs(set, setJson));
  if (run.code !== 0) throw new Error(`helm template exited ${run.code}: ${run.stderr}`);
  return parseObjects(run.stdout).map(({ object }) => object);
}

async function notes(set: string[]): Promise<string> {
  const run = await helm(['install', RELEASE, CHART, '--namespace', NAMESPACE, '--dry-run=client', ...setArgs(set)]);
  if (run.code !== 0) throw new Error(`helm install --dry-run=client exited ${run.code}: ${run.stderr}`);
  const at = run.stdout.indexOf('\nNOTES:\n');
  expect(at, 'helm printed no NOTES').toBeGreaterThan(0);
  return run.stdout.slice(at);
}

/** The value after `flag` in the args of the svc container running `subcommand` (one per matching workload). */
function flagValues(objects: KubeObject[], subcommand: string, flag: string): string[] {
  const values: string[] = [];
  for (const object of objects) {
    if (!['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind)) continue;
    for (const container of (object.spec as Json).template.spec.containers as Json[]) {
      const args = (container.args ?? []) as string[];
      if (args[0] !== subcommand) continue;
      const at = args.indexOf(flag);
      values.push(at >= 0 ? args[at + 1]! : `(${object.kind} ${object.metadata.name} has no ${flag})`);
    }
  }
  return values;
}

function publicUrls(objects: KubeObject[]): { bridge: string[]; ships: string[] } {
  return { bridge: flagValues(objects, 'bridge', '--public-url'), ships: flagValues(objects, 'ship', '--bridge-url') };
}

describe.skipIf(!haveHelm)('bridge.publicUrl left empty', () => {
  const ingress = ['ingress.enabled=true', 'ingress.host=svc.example.test'];

  it('an Ingress without a TLS Secret gives https://<ingress.host>, as values.yaml documents', async () => {
    expect(publicUrls(await render(ingress))).toEqual({
      bridge: ['https://svc.example.test'],
      ships: ['https://svc.example.test'],
    });
  });

  it('an Ingress with a TLS Secret gives the same URL', async () => {
    expect(publicUrls(await render([...ingress, 'ingress.tls.secretName=svc-example-tls']))).toEqual({
      bridge: ['https://svc.example.test'],
      ships: ['https://svc.example.test'],
    });
  });

  it('a plain-HTTP ingress says so with bridge.publicUrl, which wins', async () => {
    expect(publicUrls(await render([...ingress, 'bridge.publicUrl=http://svc.example.test']))).toEqual({
      bridge: ['http://svc.example.test'],
      ships: ['http://svc.example.test'],
    });
  });

  it('the notes log in at the same https:// URL', async () => {
    expect(await notes(ingress)).toContain('svc login --bridge-url https://svc.example.test ');
  });
});

describe.skipIf(!haveHelm)('imagePullSecrets', () => {
  const expected = [{ name: 'regcred' }, { name: 'mirror-creds' }];
  const forms: { title: string; json: string }[] = [
    { title: 'Secret names', json: 'imagePullSecrets=["regcred","mirror-creds"]' },
    {
      title: '{name} objects, as in a pod spec',
      json: 'imagePullSecrets=[{"name":"regcred"},{"name":"mirror-creds"}]',
    },
    { title: 'both forms mixed', json: 'imagePullSecrets=["regcred",{"name":"mirror-creds"}]' },
  ];

  it.each(forms)("as $title reach every pod the chart renders, PostgreSQL's included", async ({ json }) => {
    const objects = await render(['postgresql.enabled=true', 'ship.enabled=true'], [json]);
    const pods = objects.filter((object) =>
      ['Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'CronJob', 'Pod'].includes(object.kind),
    );
    expect(pods.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(
      expect.arrayContaining([
        'Deployment/svc-bridge',
        'Deployment/svc-operator',
        'DaemonSet/svc-ship',
        'StatefulSet/svc-postgresql',
      ]),
    );
    for (const object of pods) {
      const spec = object.spec as Json;
      const pod =
        object.kind === 'Pod'
          ? spec
          : object.kind === 'CronJob'
            ? spec.jobTemplate.spec.template.spec
            : spec.template.spec;
      expect(pod.imagePullSecrets, `${object.kind} ${object.metadata.name}`).toEqual(expected);
    }
  });

  it('none given renders no imagePullSecrets', async () => {
    for (const object of await render(['postgresql.enabled=true'])) {
      if (['Deployment', 'DaemonSet', 'StatefulSet'].includes(object.kind))
        expect(
          (object.spec as Json).template.spec.imagePullSecrets,
          `${object.kind} ${object.metadata.name}`,
        ).toBeUndefined();
    }
  });

  const refused: { title: string; json: string; message: RegExp }[] = [
    {
      title: 'an object without a name',
      json: 'imagePullSecrets=[{"secret":"regcred"}]',
      message: /\/imagePullSecrets\/0': missing property 'name'/,
    },
    {
      title: 'a name that is no Secret name',
      json: 'imagePullSecrets=[{"name":"Reg_Cred"}]',
      message: /\/imagePullSecrets\/0\/name': 'Reg_Cred' does not match pattern/,
    },
    {
      title: 'an empty name',
      json: 'imagePullSecrets=[""]',
      message: /\/imagePullSecrets\/0': '' does not match pattern/,
    },
  ];
  it.each(refused)('values.schema.json refuses $title, naming it', async ({ json, message }) => {
    const run = await template(setArgs([], [json]));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("values don't meet the specifications of the schema");
    expect(run.stderr).toMatch(message);
  });
});

describe.skipIf(!haveHelm)('NOTES.txt on uninstalling', () => {
  it('names the finalizer, the order (Ships and Repos first) and the recovery patch', async () => {
    const text = await notes([]);
    expect(text).toContain(FINALIZER);
    expect(text).toMatch(/kubectl -n svc delete ships,repos --all[^\n]*\n[\s\S]*helm uninstall svc -n svc/);
    expect(text).toContain(`--type=merge -p '{"metadata":{"finalizers":null}}'`);
  });
});
