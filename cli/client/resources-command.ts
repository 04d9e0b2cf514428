// `svc client resources`: host resources of every ship (through the bridge) or of one ship (--url).
import { Command } from 'commander';
import type { ShipSystemResources, SystemResources } from '../../protocol/index.js';
import type { ApiClient } from '../api/api-client.js';
import { printJson, state } from '../output.js';
import { formatTable } from '../table.js';

const GiB = 1024 ** 3;
const percent = (value: number) => `${Math.round(value * 100)}%`;
const row = (name: string, status: string, r: SystemResources | null, error: string | null) =>
  r
    ? [
        name,
        state(status),
        `${r.cpu.cores} × ${percent(r.cpu.usage)}`,
        r.cpu.loadAverage.map((l) => l.toFixed(2)).join(' '),
        `${(r.memory.used / GiB).toFixed(1)}/${(r.memory.total / GiB).toFixed(1)} GiB (${percent(r.memory.usage)})`,
        `${r.os.platform} ${r.os.arch}`,
      ]
    : [name, state(status), '-', '-', '-', error ?? '-'];

export function resourcesCommand(api: () => ApiClient, json: () => boolean): Command {
  return new Command('resources').description('CPU, load and memory of the ships').action(async () => {
    const target = api();
    const headers = ['SHIP', 'STATUS', 'CPU', 'LOAD', 'MEMORY', 'OS'];
    if (target.viaBridge) {
      const fleet = await target.call<ShipSystemResources[]>('GET', '/system-resources');
      if (json()) return printJson(fleet);
      if (fleet.length === 0) return void process.stdout.write('no ships\n');
      process.stdout.write(
        formatTable(
          headers,
          fleet.map((s) => row(s.ship, s.status, s.resources, s.error)),
        ),
      );
    } else {
      const one = await target.call<SystemResources>('GET', '/system-resources');
      if (json()) return printJson(one);
      process.stdout.write(formatTable(headers, [row(one.os.hostname, 'online', one, null)]));
    }
  });
}
