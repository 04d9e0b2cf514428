// Rendering the Helm chart (charts/svc) for the chart tests, with the pinned helm (v4.1.4, found by
// test/helpers/external-tools.ts): the values matrix under testdata/ (one values file per case, as Coder's
// chart tests do), `helm template` with a fixed release name and namespace, and the rendered documents
// parsed. Every case renders once per test file run (cached), since helm costs a process each time.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { HELM, K8S_TOOLS_HINT, toolAvailable } from '../helpers/external-tools.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CHART = join(ROOT, 'charts', 'svc');
export const TESTDATA = join(import.meta.dirname, 'testdata');
export const RELEASE = 'svc';
export const NAMESPACE = 'svc';
export const UPDATE = process.env.SVC_UPDATE_DOCS === '1';
// Rewriting the golden files and then comparing against them passes whatever is rendered: never in CI.
if (UPDATE && process.env.CI === 'true')
  throw new Error('SVC_UPDATE_DOCS=1 under CI=true: the chart tests would compare the chart with itself');

export function helmAvailable(who: string): boolean {
  return toolAvailable(HELM, who, K8S_TOOLS_HINT);
}

export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): Promise<HelmRun> {
  return new Promise((done) => {
    execFile(HELM, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The values cases: testdata/<case>.yaml, each with its golden testdata/<case>.golden.yaml. */
export const CASES = readdirSync(TESTDATA)
  .filter((name) => name.endsWith('.yaml') && !name.endsWith('.golden.yaml'))
  .map((name) => name.slice(0, -'.yaml'.length))
  .sort();

export function valuesFile(name: string): string {
  return join(TESTDATA, `${name}.yaml`);
}

export function goldenFile(name: string): string {
  return join(TESTDATA, `${name}.golden.yaml`);
}

/** `helm template` of the chart with extra arguments (values files, --set). */
export function template(args: string[] = []): Promise<HelmRun> {
  return helm(['template', RELEASE, CHART, '--namespace', NAMESPACE, ...args]);
}

const rendered = new Map<string, Promise<string>>();

/** The rendered manifest of a values case (fails on a helm error). */
export function renderCase(name: string): Promise<string> {
  let text = rendered.get(name);
  if (!text) {
    text = template(['--values', valuesFile(name)]).then((run) => {
      if (run.code !== 0) throw new Error(`helm template (${name}) exited ${run.code}: ${run.stderr}`);
      return run.stdout;
    });
    rendered.set(name, text);
  }
  return text;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The objects of a multi-document manifest (empty documents dropped), each with the template it came from. */
export function parseObjects(manifest: string): { source: string; object: KubeObject }[] {
  const objects: { source: string; object: KubeObject }[] = [];
  for (const document of parseAllDocuments(manifest)) {
    if (document.errors.length) throw new Error(`rendered YAML does not parse: ${document.errors[0]!.message}`);
    const object = document.toJS() as KubeObject | null;
    if (!object) continue;
    const source = /# Source: (\S+)/.exec(document.commentBefore ?? '')?.[1] ?? '(unknown template)';
    objects.push({ source, object });
  }
  return objects;
}

export async function caseObjects(name: string): Promise<KubeObject[]> {
  return parseObjects(await renderCase(name)).map(({ object }) => object);
}
