// Host resources for GET /system-resources: OS facts, CPU busy fraction sampled over 100 ms, load average,
// memory. Load average is all zeros where the platform has none (os.loadavg already reports that).
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { CPU_SAMPLE_WINDOW_MS, type SystemResources } from '../../protocol/index.js';

function cpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + idle + irq;
  }
  return { busy, total };
}

export async function sampleCpuUsage(windowMs = CPU_SAMPLE_WINDOW_MS): Promise<number> {
  const start = cpuTimes();
  await sleep(windowMs);
  const end = cpuTimes();
  const total = end.total - start.total;
  if (total <= 0) return 0;
  return Math.min(1, Math.max(0, (end.busy - start.busy) / total));
}

export async function readSystemResources(): Promise<SystemResources> {
  const usage = await sampleCpuUsage();
  const cpus = os.cpus();
  const total = os.totalmem();
  const free = os.freemem();
  const [one = 0, five = 0, fifteen = 0] = os.loadavg();
  return {
    uptimeSeconds: os.uptime(),
    os: {
      type: os.type(),
      platform: os.platform(),
      release: os.release(),
      version: os.version(),
      arch: os.arch(),
      machine: os.machine(),
      hostname: os.hostname(),
    },
    cpu: {
      model: cpus[0]?.model || 'unknown',
      cores: cpus.length,
      usage,
      loadAverage: [one, five, fifteen],
    },
    memory: { total, free, used: total - free, usage: total > 0 ? (total - free) / total : 0 },
  };
}
