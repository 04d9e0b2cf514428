// The Helm chart (charts/svc) as helm sees it, with the pinned helm v4.1.4: `helm lint --strict` over every
// values case; `helm template` of each case under testdata/ against its golden file (rewrite them with
// `SVC_UPDATE_DOCS=1 npx vitest run test/chart/chart.test.ts` and read the diff); values.schema.json refusing
// bad values with a message that names the value; and the chart's crds/ byte-identical to the repository's.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CASES,
  CHART,
  goldenFile,
  helm,
  helmAvailable,
  parseObjects,
  renderCase,
  ROOT,
  template,
  UPDATE,
  valuesFile,
} from './render.js';

const haveHelm = helmAvailable('test/chart/chart.test.ts');

describe.skipIf(!haveHelm)('the svc chart under helm', () => {
  it('has a values case for each part the matrix must cover', () => {
    for (const name of [
      'defaults',
      'postgresql-bundled',
      'postgresql-external',
      'ingress',
      'gateway',
      'ships-emptydir',
      'servicemonitor',
      'flags-off',
    ]) {
      expect(CASES).toContain(name);
    }
  });

  it.each(CASES)('helm lint --strict passes with %s', async (name) => {
    const run = await helm(['lint', '--strict', CHART, '--namespace', 'svc', '--values', valuesFile(name)]);
    expect(run.stdout + run.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(run.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    expect(run.code).toBe(0);
  });

  it.each(CASES)('helm template with %s matches its golden file', async (name) => {
    const manifest = await renderCase(name);
    const file = goldenFile(name);
    if (UPDATE) writeFileSync(file, manifest);
    expect(
      manifest,
      `${file} is stale: rewrite it with SVC_UPDATE_DOCS=1 npx vitest run test/chart/chart.test.ts`,
    ).toBe(readFileSync(file, 'utf8'));
  });

  it('renders each component with the labels the operator selects on', async () => {
    const objects = parseObjects(await renderCase('defaults')).map(({ object }) => object);
    const daemonSet = objects.find((object) => object.kind === 'DaemonSet')!;
    const template = (daemonSet.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
    // operator/reconcile/names.ts: shipDaemonSetSelector, applied to the DaemonSet and to its pods.
    for (const labels of [daemonSet.metadata.labels!, template.metadata.labels]) {
      expect(labels).toMatchObject({ 'app.kubernetes.io/name': 'svc', 'app.kubernetes.io/component': 'ship' });
    }
    for (const object of objects) {
      expect(object.metadata.labels?.['app.kubernetes.io/name'], `${object.kind} ${object.metadata.name}`).toBe('svc');
      expect(object.metadata.labels?.['app.kubernetes.io/instance'], `${object.kind} ${object.metadata.name}`).toBe(
        'svc',
      );
    }
  });

  it('turning an optional part off renders none of its objects', async () => {
    const kinds = parseObjects(await renderCase('flags-off')).map(
      ({ object }) => `${object.kind}/${object.metadata.name}`,
    );
    expect(
      kinds.filter((kind) =>
        /^(DaemonSet|NetworkPolicy|ClusterRole|Ingress|HTTPRoute|ServiceMonitor|StatefulSet|Namespace)\//.test(kind),
      ),
    ).toEqual([]);
    expect(kinds).toContain('Deployment/svc-bridge');
    expect(kinds).toContain('Deployment/svc-operator');
  });

  describe('values.schema.json refuses bad values, naming them', () => {
    const cases: { title: string; set: string[]; message: RegExp }[] = [
      {
        title: 'the bundled and an external PostgreSQL at once',
        set: ['postgresql.enabled=true', 'database.existingSecret=team-postgres'],
        message: /\/database\/existingSecret': got string, want null/,
      },
      {
        title: 'an empty key for the database URL',
        set: ['database.existingSecretKey='],
        message: /\/database\/existingSecretKey': minLength/,
      },
      {
        title: 'no key for the database URL',
        set: ['database.existingSecretKey=null'],
        message: /\/database': missing property 'existingSecretKey'/,
      },
      {
        title: 'an empty database Secret name',
        set: ['database.existingSecret='],
        message: /\/database\/existingSecret': minLength/,
      },
      {
        title: 'an unknown fleet mode',
        set: ['ship.fleet.mode=nfs'],
        message: /\/ship\/fleet\/mode': value must be one of 'hostPath', 'emptyDir'/,
      },
      {
        title: 'an unknown ship network',
        set: ['ship.network=nodePort'],
        message: /\/ship\/network': value must be one of 'hostPort', 'hostNetwork'/,
      },
      { title: 'an unknown log level', set: ['logLevel=verbose'], message: /\/logLevel': value must be one of/ },
      {
        title: 'an unknown armory source',
        set: ['bridge.armory.source=git'],
        message: /\/bridge\/armory\/source': value must be one of 'persistentVolume', 'configMap'/,
      },
      {
        title: 'an armory ConfigMap without files',
        set: ['bridge.armory.source=configMap'],
        message: /\/bridge\/armory\/files': minProperties/,
      },
      {
        title: 'an unknown Pod Security level',
        set: ['podSecurity.enforce=open'],
        message: /\/podSecurity\/enforce': value must be one of/,
      },
      {
        title: 'a value the chart does not have',
        set: ['bridge.replicas=2'],
        message: /\/bridge': additional properties 'replicas' not allowed/,
      },
      { title: 'an Ingress without a host', set: ['ingress.enabled=true'], message: /\/ingress\/host': minLength/ },
      {
        title: 'an HTTPRoute without a Gateway',
        set: ['gateway.enabled=true'],
        message: /\/gateway\/parentRefs': minItems/,
      },
      {
        title: 'a grace that is not a duration',
        set: ['operator.daemonsetGrace=ten minutes'],
        message: /\/operator\/daemonsetGrace': '[^']*' does not match pattern/,
      },
      {
        title: 'a public URL that is not a URL',
        set: ['bridge.publicUrl=svc.example.test'],
        message: /\/bridge\/publicUrl': '[^']*' does not match pattern/,
      },
      {
        title: 'a relative hostPath',
        set: ['ship.fleet.hostPath=var/lib/svc'],
        message: /\/ship\/fleet\/hostPath': '[^']*' does not match pattern/,
      },
      { title: 'no operator replica', set: ['operator.replicas=0'], message: /\/operator\/replicas': minimum/ },
    ];
    it.each(cases)('$title', async ({ set, message }) => {
      const run = await template(set.flatMap((value) => ['--set', value]));
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("values don't meet the specifications of the schema");
      expect(run.stderr).toMatch(message);
    });

    it('and accepts the values file of every case', async () => {
      for (const name of CASES) await expect(renderCase(name)).resolves.toContain('kind: Deployment');
    });
  });

  it("ships the repository's CRDs unchanged in crds/ (installed, never deleted by helm)", () => {
    const repoCrds = readdirSync(join(ROOT, 'crds'))
      .filter((name) => name.endsWith('.yaml'))
      .sort();
    expect(readdirSync(join(CHART, 'crds')).sort()).toEqual(repoCrds);
    for (const name of repoCrds) {
      expect(
        readFileSync(join(CHART, 'crds', name), 'utf8'),
        `charts/svc/crds/${name} differs from crds/${name}: cp crds/*.yaml charts/svc/crds/`,
      ).toBe(readFileSync(join(ROOT, 'crds', name), 'utf8'));
    }
  });
});
