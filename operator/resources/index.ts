// The Ship and Repo custom resources (group svc.dev, v1alpha1): schemas the CRDs are generated from, the
// types the operator reads and writes, and the names docs/architecture.md §10 fixes.
export * from './common.js';
export * from './ship.js';
export * from './repo.js';
