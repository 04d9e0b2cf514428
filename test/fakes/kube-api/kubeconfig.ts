// The kubeconfig a client needs to reach the fake: the server URL, the CA that signed its certificate
// (certificate-authority-data) and a bearer token, in one context that is current.
import { stringify } from 'yaml';

export interface KubeconfigSpec {
  server: string;
  caPem: string;
  token: string;
  namespace: string;
  name?: string;
}

export function kubeconfigYaml(spec: KubeconfigSpec): string {
  const name = spec.name ?? 'fake-kube-api';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: { server: spec.server, 'certificate-authority-data': Buffer.from(spec.caPem).toString('base64') },
      },
    ],
    users: [{ name, user: { token: spec.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: spec.namespace } }],
    'current-context': name,
    preferences: {},
  });
}
