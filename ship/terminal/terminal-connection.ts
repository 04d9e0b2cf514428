// One terminal WebSocket (spec "WS …/terminal"): waits for `init`, attaches a tmux control-mode client to
// the workspace's session (for typing, sizing and reading the screen), seeds a headless terminal with the
// pane's screen, feeds it the pane's raw output from a `pipe-pane` FIFO, and sends that screen as grid/patch
// frames paced by acks; `history` is answered from tmux's own (history-reader.ts). Validates every client
// message, closes with the spec's codes, ends with `exit`, and disposes the client, emulator and timers on every path. Output is
// flow-controlled against the emulator's parse backlog, so a burst accumulates in the emulator and costs a
// few frames, not one per chunk. The pane's raw bytes reach the emulator, so CSI counts are clamped
// (csi-clamp.ts, docs/security.md F1/F2). With deflate negotiated, only large frames (a grid, a full-screen
// patch) are compressed: a keystroke's patch goes out at once, not after a zlib thread-pool round trip
// (protocol/websocket-compression.ts).
import xterm from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
import type { Terminal } from '@xterm/headless';
import { Compile } from 'typebox/compile';
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import {
  TERMINAL_CLOSE,
  TERMINAL_INIT_TIMEOUT_MS,
  TerminalClientMessage,
  type ExitFrame,
} from '../../protocol/index.js';
import { compressionFor } from '../../protocol/websocket-compression.js';
import type { Tmux } from '../sessions/tmux.js';
import { ControlClient } from './control-client.js';
import { inputCommands } from './control-protocol.js';
import { openPaneStream, type PaneStream, type PipeDirectory } from './pane-pipe.js';
import { clampCsiCounts } from './csi-clamp.js';
import { FrameBuilder } from './frame-builder.js';
import { FramePacer, type PacerOptions } from './pacer.js';
import { CellInterner } from './screen-reader.js';
import { ScreenTracker } from './screen-tracker.js';
import { frameJson, historyJson } from './frame-json.js';
import { readHistory } from './history-reader.js';
import type { TerminalGuard } from './terminal-guard.js';

// Both packages are CommonJS bundles: named imports fail in Node's ESM loader.
const { Terminal: HeadlessTerminal } = xterm;
const { Unicode11Addon } = unicode11;
const checkMessage = Compile(TerminalClientMessage);

/** Pause the pty when this much output waits for the emulator; resume below the low mark. */
const HIGH_WATER = 2 * 1024 * 1024;
const LOW_WATER = 256 * 1024;

export interface TerminalOptions {
  initTimeoutMs?: number;
  pacing?: PacerOptions;
}

export interface TerminalDeps {
  tmux: Tmux;
  guard: TerminalGuard;
  logger: Logger;
  options: TerminalOptions;
  /** Live connections, for shutdown. */
  connections: Set<TerminalConnection>;
  pipes: PipeDirectory;
  /** Told of each frame sent and each resync asked for (the ship's metrics). */
  metrics?: TerminalMetrics;
}

export interface TerminalMetrics {
  frameSent(type: 'grid' | 'patch'): void;
  resyncRequested(): void;
}

/** Resizes closer together than this are merged into one re-seed. */
const RESEED_INTERVAL_MS = 100;
/** History captures closer together than this are merged into one (docs/security.md H17's bound). */
const HISTORY_INTERVAL_MS = 1000;

export class TerminalConnection {
  private phase: 'awaiting-init' | 'attaching' | 'attached' | 'closed' = 'awaiting-init';
  private initTimer: NodeJS.Timeout | null = null;
  private control: ControlClient | null = null;
  /** The pipe whose bytes reach the emulator; a re-seed replaces it. */
  private stream: PaneStream | null = null;
  private term: Terminal | null = null;
  private screens: ScreenTracker | null = null;
  private pacer: FramePacer | null = null;
  /** Resize coalescing (docs/security.md H17): the latest size asked for, and whether a re-seed is running. */
  private pendingSize: { cols: number; rows: number } | null = null;
  private reseeding = false;
  private lastSeedAt = 0;
  /** How many times the emulator was seeded from tmux (attach and resizes): cost visible to tests. */
  seeds = 0;
  private readonly frames = new FrameBuilder();
  private readonly interner = new CellInterner();
  private nextSeq = 0;
  private inFlight = 0;
  /** Pane output the emulator has parsed since it last reported a parse: what the pacer measures a flood by. */
  private parsedBytes = 0;
  private paused = false;
  private holdsGuard = false;
  /** History requests: whether a capture runs, whether another was asked for meanwhile, when the last began. */
  private historyRunning = false;
  private historyAgain = false;
  private historyAt = 0;

  /** @param session the workspace's tmux session, or null when the workspace is missing or inactive. */
  constructor(
    private readonly socket: WebSocket,
    private readonly session: string | null,
    private readonly deps: TerminalDeps,
  ) {}

  start(): void {
    this.deps.connections.add(this);
    this.initTimer = setTimeout(
      () => this.close(TERMINAL_CLOSE.initTimeout),
      this.deps.options.initTimeoutMs ?? TERMINAL_INIT_TIMEOUT_MS,
    );
    this.socket.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    this.socket.on('close', () => this.dispose());
    this.socket.on('error', () => this.dispose());
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.phase === 'closed') return;
    if (isBinary) return this.close(TERMINAL_CLOSE.binary);
    let message: unknown;
    try {
      message = JSON.parse(data.toString('utf8'));
    } catch {
      return this.close(TERMINAL_CLOSE.invalidMessage);
    }
    if (!checkMessage.Check(message)) return this.close(TERMINAL_CLOSE.invalidMessage);
    if (this.phase === 'awaiting-init') {
      if (message.type !== 'init') return this.close(TERMINAL_CLOSE.invalidMessage);
      this.phase = 'attaching';
      if (this.initTimer) clearTimeout(this.initTimer);
      this.initTimer = null;
      void this.attach(message.cols, message.rows).catch((error) => this.failed(error));
      return;
    }
    switch (message.type) {
      case 'init':
        return this.close(TERMINAL_CLOSE.invalidMessage);
      case 'input':
        if (!this.session) return;
        for (const command of inputCommands(`=${this.session}:`, message.data)) this.control?.command(command);
        // xterm's own echo path: after user input its next write is parsed at once instead of on a
        // setTimeout (>= 1 ms), so the echo's frame leaves in the same turn its bytes arrive.
        this.term?.input('', true);
        return;
      case 'resize':
        this.resizeTo(message.cols, message.rows);
        return;
      case 'ack':
        this.pacer?.ack(message.seq);
        return;
      case 'resync':
        this.deps.metrics?.resyncRequested();
        this.pacer?.requestSnapshot();
        return;
      case 'history':
        this.sendHistory();
        return;
    }
  }

  private async attach(cols: number, rows: number): Promise<void> {
    const session = this.session;
    if (session === null) return this.exit(1);
    if (!this.deps.guard.acquire(session)) return this.exit(1, TERMINAL_CLOSE.openElsewhere);
    this.holdsGuard = true;
    // The client carries the session's own variables: tmux's update-environment would otherwise drop them
    // from the session when this client attaches.
    const variables = await this.deps.tmux.sessionVariables(session);
    if (this.phase === 'closed') return;
    const term = new HeadlessTerminal({ cols, rows, scrollback: 0, allowProposedApi: true });
    clampCsiCounts(term);
    // tmux measures emoji and CJK with Unicode 11+ widths; the emulator must agree or wide cells shift.
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    this.term = term;
    this.screens = new ScreenTracker(term, this.interner);
    this.pacer = new FramePacer((full) => this.sendFrame(full), this.deps.options.pacing);
    term.onWriteParsed(() => {
      this.pacer?.markDirty(this.parsedBytes);
      this.parsedBytes = 0;
    });
    this.control = new ControlClient(
      this.deps.tmux.controlArgs(session),
      { ...this.deps.tmux.clientEnvironment, ...variables },
      {
        onExit: () => void this.finish(),
      },
    );
    this.phase = 'attached';
    this.lastSeedAt = Date.now();
    await this.seed(cols, rows);
  }

  /**
   * A resize re-seeds the emulator (a tmux round trip and a new pipe), so a flood is coalesced: one re-seed
   * at a time, at most every 100 ms, always to the latest size asked for.
   */
  private resizeTo(cols: number, rows: number): void {
    this.pendingSize = { cols, rows };
    if (this.reseeding) return;
    this.reseeding = true;
    void (async () => {
      while (this.pendingSize && this.phase !== 'closed') {
        const wait = this.lastSeedAt + RESEED_INTERVAL_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const size = this.pendingSize;
        if (!size) break;
        this.pendingSize = null;
        this.lastSeedAt = Date.now();
        await this.seed(size.cols, size.rows);
      }
    })()
      .catch((error) => this.failed(error))
      .finally(() => {
        this.reseeding = false;
      });
  }

  /**
   * Sizes the session to `cols`×`rows` and loads the emulator with the pane's screen as tmux holds it,
   * then shows it as a full snapshot. Used at attach and on every resize, so the view never drifts from
   * tmux's even though the two emulators reflow differently.
   */
  private async seed(cols: number, rows: number): Promise<void> {
    const control = this.control;
    if (!control || !this.term) return;
    this.seeds++;
    await control.ask(`refresh-client -C ${cols}x${rows}`);
    if (this.phase === 'closed') return;
    // A new pipe: its bytes are held until the capture is loaded, the old pipe's tail is dropped (the
    // capture already shows it).
    let held: Buffer[] | null = [];
    const stream: PaneStream = openPaneStream(
      this.deps.pipes.next(),
      (chunk) => {
        if (stream !== this.stream) return;
        if (held) held.push(chunk);
        else this.feed(chunk);
      },
      this.deps.pipes.writer,
    );
    void this.stream?.close();
    this.stream = stream;
    const target = `-t =${this.session}:`;
    // One command list runs without tmux reading the pane in between: the pipe starts exactly where the
    // capture ends.
    control.command(
      `display-message -p ${target} "#{cursor_x} #{cursor_y} #{cursor_flag} #{alternate_on}" ; ` +
        `pipe-pane -O ${target} "${stream.command}" ; capture-pane -p -e ${target}`,
      (lines, error) => {
        const term = this.term;
        if (error || !term || this.phase === 'closed' || stream !== this.stream) return;
        const [facts = '', ...screen] = lines.map((line) => line.toString('utf8'));
        const [cursorX, cursorY, cursorFlag, alternate] = facts.split(' ');
        // tmux has no format for the bracketed-paste mode: what this emulator learnt survives the re-seed.
        const bracketedPaste = term.modes.bracketedPasteMode ? '\x1b[?2004h' : '';
        term.reset();
        this.screens?.markAll();
        if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
        const setup = (alternate === '1' ? '\x1b[?1049h' : '') + bracketedPaste;
        const cursor = `\x1b[0m\x1b[${Number(cursorY) + 1};${Number(cursorX) + 1}H${cursorFlag === '0' ? '\x1b[?25l' : ''}`;
        // No reset between lines: tmux's capture carries a style over a line break (one SGR for a red block).
        term.write(`${setup}\x1b[H${screen.slice(0, rows).join('\r\n')}${cursor}`);
        const pending = held ?? [];
        held = null;
        for (const chunk of pending) this.feed(chunk);
        this.pacer?.requestSnapshot();
      },
      3,
    );
  }

  /**
   * Answers `history` with tmux's rows above the screen (history-reader.ts). One capture at a time, at most
   * one a second: requests meanwhile are answered by one more capture once that second has passed.
   */
  private sendHistory(): void {
    if (this.historyRunning) {
      this.historyAgain = true;
      return;
    }
    const control = this.control;
    const term = this.term;
    if (!control || !term || !this.session) return;
    this.historyRunning = true;
    void (async () => {
      const wait = this.historyAt + HISTORY_INTERVAL_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.isClosed()) return;
      this.historyAt = Date.now();
      const cols = term.cols;
      const rows = await readHistory(control, `=${this.session}:`, cols, this.interner);
      if (this.isClosed()) return;
      const text = historyJson(cols, rows);
      this.socket.send(text, compressionFor(text));
    })()
      .catch((error) => this.deps.logger.warn({ err: error }, 'terminal history failed'))
      .finally(() => {
        this.historyRunning = false;
        if (!this.historyAgain || this.phase === 'closed') return;
        this.historyAgain = false;
        this.sendHistory();
      });
  }

  /** A method, not a field read: TypeScript would keep an earlier narrowing of `phase` across an await. */
  private isClosed(): boolean {
    return this.phase === 'closed';
  }

  private failed(error: unknown): void {
    this.deps.logger.warn({ err: error }, 'terminal failed');
    this.exit(1);
  }

  private feed(data: Buffer): void {
    const term = this.term;
    if (!term) return;
    const size = data.length;
    this.inFlight += size;
    if (!this.paused && this.inFlight > HIGH_WATER) {
      this.paused = true;
      this.stream?.pause();
    }
    term.write(data, () => {
      this.inFlight -= size;
      this.parsedBytes += size;
      if (this.paused && this.inFlight < LOW_WATER) {
        this.paused = false;
        this.stream?.resume();
      }
    });
  }

  private sendFrame(full: boolean): number | null {
    const screens = this.screens;
    if (!screens || this.phase === 'closed') return null;
    const screen = screens.read(full);
    const seq = this.nextSeq;
    const frame =
      full || this.frames.needsGrid(screen) ? this.frames.grid(seq, screen) : this.frames.patch(seq, screen);
    if (!frame) return null;
    const text = frameJson(frame);
    this.socket.send(text, compressionFor(text));
    this.deps.metrics?.frameSent(frame.type);
    this.nextSeq++;
    return seq;
  }

  /** The control client ended: the shell exited, the session was killed, or tmux went away. */
  private async finish(): Promise<void> {
    if (this.phase === 'closed') return;
    const term = this.term;
    if (term) await new Promise<void>((resolve) => term.write('', resolve));
    this.pacer?.flushNow();
    const code = this.session ? await this.deps.tmux.takeExitStatus(this.session) : null;
    this.exit(code ?? 0);
  }

  /** `how`: the close after the exit frame; its reason tells a refusal by the one-terminal rule apart. */
  private exit(code: number, how: { code: number; reason: string } = { code: 1000, reason: '' }): void {
    if (this.phase === 'closed') return;
    const frame: ExitFrame = { type: 'exit', code };
    const text = JSON.stringify(frame);
    this.socket.send(text, compressionFor(text));
    this.close(how);
  }

  close(how: { code: number; reason: string }): void {
    if (this.phase !== 'closed') this.socket.close(how.code, how.reason);
    this.dispose();
  }

  private dispose(): void {
    if (this.phase === 'closed' && !this.control && !this.term && !this.holdsGuard) return;
    this.phase = 'closed';
    if (this.initTimer) clearTimeout(this.initTimer);
    this.initTimer = null;
    this.pacer?.stop();
    this.pacer = null;
    const control = this.control;
    this.control = null;
    // Stop tmux's copy of the output through the same client, after anything it was sent (a pipe-pane that
    // is still on its way included); the session may be gone already, which is harmless.
    control?.close(this.session ? [`pipe-pane -t =${this.session}:`] : []);
    const stream = this.stream;
    this.stream = null;
    void stream?.close();
    this.screens?.dispose();
    this.screens = null;
    this.term?.dispose();
    this.term = null;
    if (this.holdsGuard && this.session) this.deps.guard.release(this.session);
    this.holdsGuard = false;
    this.deps.connections.delete(this);
  }
}
