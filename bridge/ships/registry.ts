// The ship roster at run time: one event connection and one HTTP client per registered ship, the
// ownership index fed by their streams, and the aggregate events those streams produce. Registration probes
// the ship (first `sync` within 5 s), learns its name, refuses names and keys already taken, then adopts the
// connection and persists the roster. Create reservations live here too: a key being created (or whose
// create ended without an answer) is not created again.
import {
  messageOf,
  workspaceKey,
  type BridgeWorkspaceSummary,
  type ShipInfo,
  type SyncEvent,
  type WorkspaceSummary,
} from '../../protocol/index.js';
import { BridgeError } from '../errors.js';
import {
  SHIP_TAKEN_STATUS,
  SHIP_UNREACHABLE_STATUS,
  shipAlreadyRegistered,
  shipDidNotRespond,
} from '../../protocol/ship-registration.js';
import type { EventHub } from '../events/event-hub.js';
import { ephemeralView, type EphemeralRecords } from '../ephemeral/ephemeral-records.js';
import type { FrameSegment } from '../events/broadcast-frame.js';
import { AggregateJson } from './aggregate-json.js';
import { AgentHistories } from '../index/agent-histories.js';
import { OwnershipIndex, type OwnerChange } from '../index/ownership-index.js';
import type { ShipsStore } from '../store/ships-store.js';
import { ShipClient } from './ship-client.js';
import { tokenHash } from '../../server/tokens.js';
import { ShipConnection, type BackoffOptions, type ShipStreamOptions } from './ship-connection.js';

export const REGISTRATION_PROBE_MS = 5000;

export interface LiveShip {
  name: string;
  url: string;
  client: ShipClient;
  connection: ShipConnection;
}

export interface RegisterInput {
  url: string;
  shipToken?: string;
  bridgeToken?: string;
}

export class ShipRegistry {
  readonly index: OwnershipIndex;
  /** Each agent's recent past as the ships' streams showed it (GET /workspaces/agent-history). */
  readonly histories = new AgentHistories();
  private readonly ships = new Map<string, LiveShip>();
  /** Keys with a create in flight, or whose create ended without an answer, → the ship it targets. */
  private readonly reservations = new Map<string, { ship: string; settled: boolean }>();
  /** The aggregate's JSON, kept between builds (see aggregateSegments). */
  private readonly aggregate = new AggregateJson((key) => this.entryJson(key));
  /** Each ephemeral record's ship and view as the aggregate last had them, by key. */
  private ephemeralSeen = new Map<string, string>();
  private events: EventHub | null = null;
  private ephemeral: EphemeralRecords | null = null;
  private readonly lifecycle: {
    online: Array<(ship: LiveShip) => void>;
    removed: Array<(name: string) => void | Promise<void>>;
    synced: Array<(ship: string, workspaces: readonly WorkspaceSummary[]) => void>;
    created: Array<(ship: string, workspace: WorkspaceSummary) => void>;
  } = { online: [], removed: [], synced: [], created: [] };

  constructor(
    private readonly store: ShipsStore,
    private readonly options: {
      backoff?: BackoffOptions;
      heartbeatMs?: number;
      probeMs?: number;
      onOwnerChange?: OwnerChange;
    } = {},
  ) {
    this.index = new OwnershipIndex(options.onOwnerChange);
    this.index.onEntryChange((key) => this.aggregate.touch(key));
  }

  private streamOptions(): ShipStreamOptions {
    return { ...this.options.backoff, heartbeatMs: this.options.heartbeatMs };
  }

  useEvents(events: EventHub): void {
    this.events = events;
  }

  /** Where `ephemeral` of every answer and event comes from. */
  useEphemeral(records: EphemeralRecords): void {
    this.ephemeral = records;
  }

  /** The aggregate snapshot to every subscriber (a change the ships did not report, such as a sweep's). */
  publishSync(): void {
    this.events?.publishSync();
  }

  /** Calls `listener` each time a ship's event stream comes online (agent credentials are pushed then). */
  onShipOnline(listener: (ship: LiveShip) => void): void {
    this.lifecycle.online.push(listener);
  }

  /** Calls `listener` with each sync a ship's stream delivers (after the index took it). */
  onShipSync(listener: (ship: string, workspaces: readonly WorkspaceSummary[]) => void): void {
    this.lifecycle.synced.push(listener);
  }

  /** Calls `listener` with each `workspace.created` a ship's stream delivers (after the index took it). */
  onWorkspaceCreated(listener: (ship: string, workspace: WorkspaceSummary) => void): void {
    this.lifecycle.created.push(listener);
  }

  /** Calls `listener` after a ship is deregistered. */
  onShipRemoved(listener: (name: string) => void | Promise<void>): void {
    this.lifecycle.removed.push(listener);
  }

  /** Connects to every ship of the stored roster (in the background: offline ones reconnect). */
  async load(): Promise<void> {
    for (const record of await this.store.list()) {
      const connection = new ShipConnection(record.url, record.bridgeToken, this.streamOptions());
      this.adopt(record.name, record.url, record.bridgeToken, connection);
    }
  }

  list(): ShipInfo[] {
    return [...this.ships.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((ship) => ({ name: ship.name, url: ship.url, status: ship.connection.isOnline() ? 'online' : 'offline' }));
  }

  get(name: string): LiveShip | null {
    return this.ships.get(name) ?? null;
  }

  async register(input: RegisterInput): Promise<ShipInfo> {
    // A blank field is no token (the GUI's form leaves them blank for a ship without credentials).
    input = { url: input.url, shipToken: input.shipToken || undefined, bridgeToken: input.bridgeToken || undefined };
    if ((input.shipToken === undefined) !== (input.bridgeToken === undefined)) {
      throw new BridgeError(400, 'a ship is registered with both a shipToken and a bridgeToken, or neither');
    }
    const url = input.url.replace(/\/+$/, '');
    const connection = new ShipConnection(url, input.bridgeToken ?? null, this.streamOptions());
    let sync: SyncEvent;
    try {
      sync = await connection.open(this.options.probeMs ?? REGISTRATION_PROBE_MS);
    } catch (error) {
      connection.close();
      throw new BridgeError(SHIP_UNREACHABLE_STATUS, shipDidNotRespond(url, messageOf(error)));
    }
    const name = sync.ship;
    const refuse = (error: BridgeError) => {
      connection.close();
      return error;
    };
    if (this.ships.has(name)) throw refuse(new BridgeError(SHIP_TAKEN_STATUS, shipAlreadyRegistered(name)));
    const conflicts = this.index.conflicts(name, sync.workspaces);
    if (conflicts.length)
      throw refuse(
        new BridgeError(409, `ship "${name}" has workspaces already hosted elsewhere: ${conflicts.join(', ')}`),
      );
    const stored = await this.store.add({
      name,
      url,
      shipTokenHash: input.shipToken ? tokenHash(input.shipToken) : null,
      bridgeToken: input.bridgeToken ?? null,
    });
    if (!stored) throw refuse(new BridgeError(SHIP_TAKEN_STATUS, shipAlreadyRegistered(name)));
    this.index.replaceView(name, sync.workspaces);
    this.histories.synced(name, sync.workspaces, sync.at);
    this.adopt(name, url, input.bridgeToken ?? null, connection);
    this.events?.publishSync();
    return { name, url, status: connection.isOnline() ? 'online' : 'offline' };
  }

  private adopt(name: string, url: string, bridgeToken: string | null, connection: ShipConnection): void {
    const ship: LiveShip = { name, url, client: new ShipClient(url, bridgeToken), connection };
    this.ships.set(name, ship);
    connection.attach({
      onOnline: (online) => {
        if (this.ships.get(name) !== ship) return;
        this.index.setOnline(name, online);
        if (online) for (const listener of this.lifecycle.online) listener(ship);
      },
      onSync: (sync) => {
        if (this.ships.get(name) !== ship) return;
        // The ship's own view now says whether an unanswered create happened.
        for (const [key, reservation] of this.reservations)
          if (reservation.ship === name && reservation.settled) this.reservations.delete(key);
        this.index.replaceView(name, sync.workspaces);
        this.histories.synced(name, sync.workspaces, sync.at);
        this.events?.publishSync();
        for (const listener of this.lifecycle.synced) listener(name, sync.workspaces);
      },
      onEvent: (event) => {
        if (this.ships.get(name) !== ship) return;
        const summary = this.index.apply(name, event);
        if (!summary) return;
        // One time for the relayed frame and the history, so a client's record of the change and the
        // bridge's agree (the inbox keys its dismissals by it).
        const at = new Date().toISOString();
        this.histories.changed(name, event, at);
        if (event.type === 'workspace.created') for (const listener of this.lifecycle.created) listener(name, summary);
        if (event.type === 'workspace.removed') this.events?.publishSync();
        else this.events?.publish(event.type, this.decorate(name, summary), event.reason, at);
      },
    });
  }

  async remove(name: string): Promise<void> {
    const ship = this.ships.get(name);
    if (!ship) throw new BridgeError(404, `ship not found: ${name}`);
    this.ships.delete(name);
    ship.connection.close();
    ship.client.close();
    this.index.removeShip(name);
    this.histories.shipRemoved(name);
    for (const [key, reservation] of this.reservations) if (reservation.ship === name) this.reservations.delete(key);
    await this.store.remove(name);
    for (const listener of this.lifecycle.removed) await listener(name);
    this.events?.publishSync();
  }

  decorate(ship: string, summary: WorkspaceSummary): BridgeWorkspaceSummary {
    return { ...summary, ship, ephemeral: this.ephemeralOf(ship, summary.repoName, summary.name) };
  }

  /** The EphemeralWorkspace of `<repo>/<name>` on `ship`, or null for an ordinary workspace. */
  ephemeralOf(ship: string, repoName: string, name: string) {
    return this.ephemeral?.view(ship, repoName, name) ?? null;
  }

  /** The aggregate view: every owned workspace with its ship. */
  snapshot(): BridgeWorkspaceSummary[] {
    return this.index.list().map((entry) => this.decorate(entry.ship, entry.summary));
  }

  /**
   * `snapshot()` (those passing `filter`) as JSON, the same text `JSON.stringify` gives, from the aggregate
   * kept between builds (aggregate-json.ts).
   */
  snapshotJson(filter?: (summary: WorkspaceSummary) => boolean): string {
    this.touchEphemeralChanges();
    return this.aggregate.text(filter && ((key) => filter(this.index.get(key)!.summary)));
  }

  /**
   * `snapshotJson()` as the segments of a frame (bridge/events/broadcast-frame.ts): a ship's sync re-renders
   * and re-compresses the runs of keys its own workspaces are in, the rest is kept (the whole aggregate of a
   * large fleet, rebuilt per ship sync, was the bridge's main cost in bench/fleet.ts).
   */
  aggregateSegments(): FrameSegment[] {
    this.touchEphemeralChanges();
    return this.aggregate.segments();
  }

  /** A key's entry in the aggregate: the same text as `JSON.stringify` of its `snapshot()` element. */
  private entryJson(key: string): string | null {
    const owned = this.index.get(key);
    return owned && JSON.stringify(this.decorate(owned.ship, owned.summary));
  }

  /**
   * Ephemeral views change without the index knowing (a sweep, a confirmed create): each build compares every
   * record's ship and view with what the aggregate last had, and re-renders the keys that differ. Records
   * left out of `settled()` (pending) have no view, as if absent.
   */
  private touchEphemeralChanges(): void {
    if (!this.ephemeral) return;
    const now = new Map<string, string>();
    for (const record of this.ephemeral.settled())
      now.set(workspaceKey(record.repoName, record.name), `${record.ship} ${JSON.stringify(ephemeralView(record))}`);
    for (const [key, seen] of now) if (this.ephemeralSeen.get(key) !== seen) this.aggregate.touch(key);
    for (const key of this.ephemeralSeen.keys()) if (!now.has(key)) this.aggregate.touch(key);
    this.ephemeralSeen = now;
  }

  /** The online ship owning `<repo>/<name>`, or the spec's 404/503. */
  owning(repo: string, name: string): LiveShip {
    const key = workspaceKey(repo, name);
    const owner = this.index.owner(key);
    const ship = owner ? this.ships.get(owner) : undefined;
    if (!owner || !ship) throw new BridgeError(404, `workspace not found: ${key}`);
    if (!ship.connection.isOnline()) throw new BridgeError(503, `ship "${owner}" hosting ${key} is offline`);
    return ship;
  }

  /** The online ship named `name` for a create or a per-ship call, or the spec's 400/503. */
  target(name: string): LiveShip {
    const ship = this.ships.get(name);
    if (!ship) throw new BridgeError(400, `unknown ship: ${name}`);
    if (!ship.connection.isOnline()) throw new BridgeError(503, `ship "${name}" is offline`);
    return ship;
  }

  /** A routed call failed at transport level: the ship is offline from now on (it reconnects). */
  unreachable(ship: LiveShip, message: string): BridgeError {
    ship.connection.lost();
    this.index.setOnline(ship.name, false);
    return new BridgeError(503, `ship "${ship.name}" unreachable: ${message}`);
  }

  reserve(key: string, ship: string): void {
    if (this.index.owner(key)) throw new BridgeError(409, `workspace already exists: ${key}`);
    if (this.reservations.has(key)) throw new BridgeError(409, `workspace being created: ${key}`);
    this.reservations.set(key, { ship, settled: false });
  }

  /** The create answered (either way): the key is free to be decided by the index. */
  release(key: string): void {
    this.reservations.delete(key);
  }

  /** The create got no answer: hold the key until the ship's next sync tells what happened. */
  holdUndecided(key: string): void {
    const reservation = this.reservations.get(key);
    if (reservation) reservation.settled = true;
  }

  /**
   * A delete through the bridge succeeded: the index forgets the key now, so the caller's next create is not
   * refused while the ship's `workspace.removed` is still on its way (that event is then dropped).
   */
  deleted(ship: string, key: string): void {
    if (this.index.deleted(ship, key)) this.events?.publishSync();
  }

  /** Whether the ship named `name` is still registered (a create's target may be removed mid-request). */

  isRegistered(name: string): boolean {
    return this.ships.has(name);
  }

  close(): void {
    for (const ship of this.ships.values()) {
      ship.connection.close();
      ship.client.close();
    }
    this.ships.clear();
  }
}
