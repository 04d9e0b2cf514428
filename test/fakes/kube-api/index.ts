// A fake Kubernetes API server for tests (issue #19): a small real HTTPS server speaking the apiserver's
// wire protocol, so @kubernetes/client-node and kubectl talk to it as to a cluster. server.ts lists its
// options and knobs; test/kube/ has its contract suite (also runnable against a real cluster) and tests.
//
//   const fake = await startFakeKubeApi();          // crds/*.yaml of this repo installed when present
//   const kc = new KubeConfig();
//   kc.loadFromFile(fake.kubeconfigPath);           // CA + bearer token; or pass KUBECONFIG=… to a child
//   … kc.makeApiClient(CustomObjectsApi) …         // or: kubectl --kubeconfig fake.kubeconfigPath …
//   fake.create({...}); fake.writeStatus(...);       // seed objects (same rules as over HTTP)
//   fake.dropWatches({ midEvent: true }); fake.compact(); await fake.restart();   // faults
//   await fake.close();
//
// Serves: discovery, OpenAPI v3, secrets, pods (+status), events, apps/v1 daemonsets (+status),
// coordination.k8s.io/v1 leases, apiextensions.k8s.io/v1 customresourcedefinitions (+status) and every
// resource a CRD defines; svc.dev/v1alpha1 ships and repos schemaless (+status) until a CRD defines them;
// authentication.k8s.io/v1 TokenReview for pod-bound tokens made with addBoundToken (no discovery for it).
// Knowingly not: protobuf or CBOR bodies (415; kubectl's typed `create secret …` sends protobuf, `apply`
// and `create -f` send JSON), server-side apply and managedFields, namespaces as objects (any namespace is
// accepted), version conversion between CRD versions, RBAC beyond the authorize hook, pod graceful
// termination (pods go at once), events.k8s.io/v1, aggregated discovery and /openapi/v2, list/set
// uniqueness of x-kubernetes-list-type, CEL beyond the subset in cel.ts.
export {
  COMMITTED_CRDS,
  FakeKubeApi,
  startFakeKubeApi,
  type BoundToken,
  type FakeKubeApiOptions,
  type InjectedFault,
  type RequestAttributes,
  type SeenRequest,
} from './server.js';
export type { KubeObject } from './resources.js';
