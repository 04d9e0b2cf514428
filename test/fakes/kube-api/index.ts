// A fake Kubernetes API server for tests (issue #19): see server.ts for what it is and the knobs it has.
export { COMMITTED_CRDS, FakeKubeApi, startFakeKubeApi, type FakeKubeApiOptions, type InjectedFault, type RequestAttributes, type SeenRequest } from './server.js';
export type { KubeObject } from './resources.js';
