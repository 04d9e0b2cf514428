import { describe, expect, it } from 'vitest';
import {
  alreadyRegisteredName,
  probeRefusalStatus,
  shipAlreadyRegistered,
  shipDidNotRespond,
  shipStreamRefused,
} from './ship-registration.js';

describe('POST /ships refusals: each format and its reader', () => {
  it('reads back the name a 409 reports, and nothing from another 409', () => {
    expect(alreadyRegisteredName(shipAlreadyRegistered('n1'))).toBe('n1');
    expect(alreadyRegisteredName(shipAlreadyRegistered('a name: with a colon'))).toBe('a name: with a colon');
    expect(alreadyRegisteredName('ship "n1" has workspaces already hosted elsewhere: r/w')).toBeUndefined();
    expect(alreadyRegisteredName(shipAlreadyRegistered(''))).toBeUndefined();
  });

  it('reads the status a ship refused the probe with, and none from another failure', () => {
    expect(probeRefusalStatus(shipDidNotRespond('http://10.0.0.1:4700', shipStreamRefused(401)))).toBe(401);
    expect(probeRefusalStatus(shipDidNotRespond('http://[fd00::1]:4700', shipStreamRefused(403)))).toBe(403);
    expect(
      probeRefusalStatus(shipDidNotRespond('http://10.0.0.1:4700', 'connect ECONNREFUSED 10.0.0.1:4700')),
    ).toBeUndefined();
    expect(probeRefusalStatus(shipDidNotRespond('http://10.0.0.1:4700', 'no sync within 700 ms'))).toBeUndefined();
    expect(probeRefusalStatus(shipStreamRefused(401))).toBeUndefined();
  });
});
