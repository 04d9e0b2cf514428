// STUB written by the operator runtime (issue #19) so `svc operator` runs before the Ship/Repo reconcilers
// land; the reconcile helper replaces this file. Contract: operator/runtime/controller.ts.
import type { ReconcilerFactory } from '../runtime/controller.js';

export const createReconcilers: ReconcilerFactory = () => [];
