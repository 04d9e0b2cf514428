// Where the Kubernetes contract suite runs. Always against the fake API server (test/fakes/kube-api); also
// against a real cluster when asked explicitly: SVC_KUBE_CONTRACT=real plus KUBECONFIG naming the cluster's
// kubeconfig (both, so a developer's everyday KUBECONFIG never receives test objects by accident).
// SVC_KUBE_CONTRACT_NAMESPACE picks the namespace there (default: the context's, else `default`).
import { KubeConfig } from '@kubernetes/client-node';
import { startFakeKubeApi, type FakeKubeApi, type FakeKubeApiOptions } from '../fakes/kube-api/index.js';

export interface ContractTarget {
  name: string;
  kubeconfig: KubeConfig;
  kubeconfigPath: string;
  namespace: string;
  /** Present only for the fake: its knobs (bookmarks on demand, compaction, dropped watches). */
  fake?: FakeKubeApi;
  close(): Promise<void>;
}

export const REAL_CLUSTER_REQUESTED = process.env.SVC_KUBE_CONTRACT === 'real';
export const REAL_CLUSTER_KUBECONFIG = REAL_CLUSTER_REQUESTED ? process.env.KUBECONFIG : undefined;

export const REAL_CLUSTER_NOTICE =
  REAL_CLUSTER_REQUESTED && !REAL_CLUSTER_KUBECONFIG
    ? 'SVC_KUBE_CONTRACT=real is set but KUBECONFIG is not: the real-cluster run is skipped'
    : 'no real cluster configured (SVC_KUBE_CONTRACT=real KUBECONFIG=/path/to/kubeconfig): the Kubernetes contract suite runs against the fake API server only';

export async function fakeTarget(options: FakeKubeApiOptions = {}): Promise<ContractTarget> {
  const fake = await startFakeKubeApi({ crds: 'none', ...options });
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(fake.kubeconfigPath);
  return {
    name: 'fake API server',
    kubeconfig,
    kubeconfigPath: fake.kubeconfigPath,
    namespace: fake.namespace,
    fake,
    close: () => fake.close(),
  };
}

export async function realTarget(): Promise<ContractTarget> {
  const path = REAL_CLUSTER_KUBECONFIG!;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(path);
  const context = kubeconfig.getContextObject(kubeconfig.getCurrentContext());
  const namespace = process.env.SVC_KUBE_CONTRACT_NAMESPACE ?? context?.namespace ?? 'default';
  return {
    name: `real cluster (${kubeconfig.getCurrentCluster()?.server ?? path})`,
    kubeconfig,
    kubeconfigPath: path,
    namespace,
    close: async () => {},
  };
}
