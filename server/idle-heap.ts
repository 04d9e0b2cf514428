// Gives an idle server's unused JavaScript heap back to the system (issue #26: an idle bridge on the embedded
// store holds at most 150 MiB). After a busy spell (a start is one) V8 keeps the heap it grew, the young
// generation most of all, until its memory reducer collects; Node 20's does within ~15 s of the last work,
// Node 24's judges the allocation rate from samples taken only at collections, so with nothing allocating it
// sees the start's rate for ~100 s and waits (figures in bench/RESULTS.md, session 18). Every 10 s this checks
// whether the event loop was idle and the heap holds much more than it uses, and then runs the collection the
// memory reducer would: one that shrinks the heap and returns its free pages. The reasoning, and what it
// costs (one pause of ~0.1–0.3 s on an idle process), are in docs/DECISIONS.md ("The embedded store's memory").
//
// Node only: server/ holds what the servers share.
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleHeapOptions {
  /** How often the loop's idleness and the heap are looked at (default 10 s). */
  checkMs?: number;
  /** The share of the last check's interval the loop may have been busy and still count as idle (default 1%). */
  idleUtilization?: number;
  /** Heap committed beyond what is used that is worth a collection (default 16 MiB). */
  slackBytes?: number;
  /** The collection (default V8's, as below; tests count calls). */
  collect?: () => void;
}

type Collect = () => void;

let collector: Collect | null = null;

/**
 * V8's `gc`, taken from a context made while `--expose-gc` is briefly on (the global context never gets it).
 * From Node 24 on, V8 returns pooled pages only from a collection that reduces memory (the `last-resort`
 * flavour); Node 20's `gc` knows no flavour (an options object there asks for a young-generation collection),
 * and its plain full collection returns them.
 */
function heapCollector(): Collect {
  if (collector) return collector;
  setFlagsFromString('--expose-gc');
  let gc: (options?: object) => void;
  try {
    gc = runInNewContext('gc') as typeof gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  const reducing = Number(process.versions.node.split('.')[0]) >= 24;
  collector = reducing ? () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }) : () => gc();
  return collector;
}

/** Starts the checks; the returned function stops them. The timer never keeps the process alive. */
export function releaseHeapWhenIdle(options: IdleHeapOptions = {}): () => void {
  const checkMs = options.checkMs ?? 10_000;
  const idleUtilization = options.idleUtilization ?? 0.01;
  const slackBytes = options.slackBytes ?? 16 * 2 ** 20;
  const collect = options.collect ?? (() => heapCollector()());
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy > idleUtilization) return;
    const heap = getHeapStatistics();
    if (heap.total_heap_size - heap.used_heap_size < slackBytes) return;
    collect();
    // The collection's own time is not the next interval's work.
    last = performance.eventLoopUtilization();
  }, checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
