// Shared by the operator runtime tests: a fake Kubernetes API (schemaless Ships, no CRDs: the runtime does
// not care about schemas), a KubeConfig for it, a silent logger, and a recorder of what a ListWatch reports.
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startFakeKubeApi, type FakeKubeApi, type FakeKubeApiOptions } from '../fakes/kube-api/index.js';
import type { ResourceRef } from '../../operator/runtime/controller.js';

export const SHIPS: ResourceRef = {
  group: 'svc.dev',
  version: 'v1alpha1',
  plural: 'ships',
  kind: 'Ship',
  namespaced: true,
};
export const SHIP_API = 'svc.dev/v1alpha1';
export const quietLog = pino({ level: process.env.SVC_TEST_LOG ?? 'silent' });

export async function startFake(options: FakeKubeApiOptions = {}): Promise<{ fake: FakeKubeApi; config: KubeConfig }> {
  const fake = await startFakeKubeApi({ crds: 'none', bookmarkIntervalMs: 200, ...options });
  const config = new KubeConfig();
  config.loadFromFile(fake.kubeconfigPath);
  return { fake, config };
}

export function ship(name: string, url = `http://ship-${name}:4700`): Record<string, unknown> {
  return { apiVersion: SHIP_API, kind: 'Ship', metadata: { name, namespace: 'default' }, spec: { url } };
}

/** Every upsert/delete a ListWatch reported, with the resourceVersion it carried. */
export class Recorder {
  readonly events: Array<{ type: 'upsert' | 'delete'; name: string; resourceVersion: string }> = [];
  readonly onEvent = (type: 'upsert' | 'delete', object: KubernetesObject) => {
    this.events.push({ type, name: object.metadata!.name!, resourceVersion: object.metadata!.resourceVersion ?? '' });
  };
  saw(type: 'upsert' | 'delete', name: string, resourceVersion?: string): boolean {
    return this.events.some(
      (event) =>
        event.type === type &&
        event.name === name &&
        (resourceVersion === undefined || event.resourceVersion === resourceVersion),
    );
  }
}
