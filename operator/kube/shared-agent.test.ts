// Which agent a call gets: the shared one while the TLS material KubeConfig derives stays the same, a new
// one when it changes (a rotated client certificate or CA), a plain http agent for an http cluster.
import http from 'node:http';
import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { SharedAgent } from './shared-agent.js';

describe('SharedAgent', () => {
  it('keeps one kept-alive agent for the same TLS material and replaces it when the material changes', () => {
    const shared = new SharedAgent();
    const first = shared.replace(new https.Agent({ ca: Buffer.from('ca-1'), cert: 'cert-1', key: 'key-1' }))!;
    expect(first).toBeInstanceOf(https.Agent);
    expect((first as http.Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    // Equal contents in new buffers (KubeConfig reads its files again for each call): the same agent.
    expect(shared.replace(new https.Agent({ ca: Buffer.from('ca-1'), cert: 'cert-1', key: 'key-1' }))).toBe(first);
    const rotated = shared.replace(new https.Agent({ ca: Buffer.from('ca-1'), cert: 'cert-2', key: 'key-2' }))!;
    expect(rotated).not.toBe(first);
    expect((rotated as https.Agent).options).toMatchObject({ cert: 'cert-2', key: 'key-2' });
    expect(shared.replace(new https.Agent({ ca: Buffer.from('ca-2'), cert: 'cert-2', key: 'key-2' }))).not.toBe(
      rotated,
    );
    expect(
      (
        shared.replace(
          new https.Agent({ ca: Buffer.from('ca-2'), cert: 'cert-2', key: 'key-2', rejectUnauthorized: false }),
        ) as https.Agent
      ).options,
    ).toMatchObject({ rejectUnauthorized: false });
    shared.destroy();
  });

  it('an http cluster gets a kept-alive http agent; no agent stays no agent', () => {
    const shared = new SharedAgent();
    const agent = shared.replace(new http.Agent())!;
    expect(agent).not.toBeInstanceOf(https.Agent);
    expect(shared.replace(new http.Agent())).toBe(agent);
    expect(shared.replace(undefined)).toBeUndefined();
    shared.destroy();
  });
});
