// The ship's terminal over real tmux and real WebSockets: snapshot, echo, resize, resync, pacing, close
// codes, the one-terminal guard, exit codes, colours and wide characters, and disposal under churn.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeRemote, type RemoteFixture } from '../helpers/git-fixtures.js';
import { call, makeTempRoot, path, removeRoot, startTestShip, type TestShip } from '../helpers/ship.js';
import { connectTerminal, terminalUrl, type TerminalClient } from '../helpers/terminal.js';
import type { Cell, CellObject, GridFrame, HistoryFrame } from '../../protocol/index.js';
import { sessionName } from '../../ship/sessions/session-names.js';
import { HISTORY_MAX_BYTES } from '../../ship/terminal/history-reader.js';
import { FILL_SCREEN, isFilled, offRule, tappedTerminal } from '../helpers/deflate-socket.js';
import { settles, until } from '../helpers/poll.js';

const ACK_TIMEOUT_MS = 400;
let root: string;
let remote: RemoteFixture;
let ship: TestShip;
let counter = 0;

beforeAll(async () => {
  root = await makeTempRoot();
  remote = makeRemote(root);
  ship = await startTestShip(root, { terminal: { initTimeoutMs: 500, pacing: { ackTimeoutMs: ACK_TIMEOUT_MS } } });
});
afterAll(async () => {
  await ship.stop();
  await removeRoot(root);
});

async function activeWorkspace(): Promise<string> {
  const name = `t${++counter}`;
  expect(
    (await call(ship.url, 'POST', '/workspaces', { url: remote.url, repoName: 'term', name, branch: 'main' })).status,
  ).toBe(201);
  expect((await call(ship.url, 'POST', path('term', name, '/activate'))).status).toBe(200);
  return name;
}

const open = (name: string, options = {}) => connectTerminal(terminalUrl(ship.url, 'term', name), options);
const prompt = (client: TerminalClient) => client.until((screen) => /[$#] ?$/m.test(screen.text()));

function rawSocket(
  name: string,
): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }>; messages: string[] }> {
  const socket = new WebSocket(terminalUrl(ship.url, 'term', name));
  const messages: string[] = [];
  socket.on('message', (data) => messages.push(data.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, closed, messages }));
    socket.once('error', reject);
  });
}

describe('terminal', () => {
  it('opens with a full grid snapshot of the init size, then echoes typed input', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { cols: 100, rows: 30 });
    await client.waitForFrames(1);
    const first = client.frames[0] as GridFrame;
    expect(first).toMatchObject({ type: 'grid', seq: 0, cols: 100, rows: 30 });
    expect(first.cells).toHaveLength(30);
    expect(first.cells.every((row) => row.length === 100)).toBe(true);
    await prompt(client);
    client.input('echo typed-$((6*7))\r');
    await client.until((screen) => screen.text().includes('typed-42'));
    // Frames after the first are patches with consecutive seqs.
    const seqs = client.frames.filter((f) => f.type !== 'exit').map((f) => (f as GridFrame).seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(client.frames.slice(1).every((f) => f.type === 'patch')).toBe(true);
    await client.close();
  });

  it('resize sends a grid of the new size and resizes the session', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    client.send({ type: 'resize', cols: 132, rows: 43 });
    await client.until((screen) => screen.cols === 132 && screen.rows === 43);
    expect(client.frames.some((f) => f.type === 'grid' && f.seq > 0 && f.cols === 132 && f.rows === 43)).toBe(true);
    // tmux resizes the pane's tty asynchronously (and may delay it by up to 250 ms): ask until it has.
    const resized = async () => {
      client.input('clear; stty size\r');
      await settles(client.until((screen) => /^\d+ \d+$/m.test(screen.text())));
      return /^43 132$/m.test(client.screen.text());
    };
    await settles(until(resized, "the pane's tty at 43x132", 20_000, 200));
    expect(client.screen.text()).toMatch(/^43 132$/m);
    await client.close();
  });

  it('coalesces a resize flood into a few re-seeds that end at the last size asked for', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    const before = client.frames.filter((f) => f.type === 'grid').length;
    const started = performance.now();
    for (let i = 0; i < 400; i++) client.send({ type: 'resize', cols: 60 + (i % 40), rows: 20 + (i % 10) });
    client.send({ type: 'resize', cols: 111, rows: 33 });
    await client.until((screen) => screen.cols === 111 && screen.rows === 33, 10_000);
    const elapsed = performance.now() - started;
    // A window, not a condition: re-seeds still coming from the burst must have had time to arrive before they are
    // counted.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 401 resizes in a burst: one re-seed now, then at most one per 100 ms while they keep coming. The
    // bound follows how long the burst really took to arrive (a loaded machine stretches it), never 401.
    const allowed = 2 + Math.ceil((elapsed + 300) / 100);
    const connection = [...ship.ship.terminals].find((terminal) => terminal.seeds > 0)!;
    expect(connection.seeds).toBeLessThanOrEqual(Math.min(allowed, 40));
    expect(client.frames.filter((f) => f.type === 'grid').length - before).toBeLessThanOrEqual(
      Math.min(allowed, 40) + 1,
    );
    expect(client.screen.cols).toBe(111);
    client.input('echo still-alive-$((1+1))\r');
    await client.until((screen) => screen.text().includes('still-alive-2'));
    await client.close();
  });

  it('resync answers with a full grid', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    const before = client.frames.length;
    client.send({ type: 'resync' });
    await client.waitForFrames(before + 1);
    expect(client.frames[before]).toMatchObject({ type: 'grid', seq: before });
    await client.close();
  });

  it('answers history with the rows above the screen: everything a burst scrolled off, styles kept, in order', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { cols: 40, rows: 6 });
    await prompt(client);
    expect(client.frames[0]).toMatchObject({ type: 'grid', history: true });
    const histories = () => client.frames.filter((frame): frame is HistoryFrame => frame.type === 'history');
    // A fresh pane has no history yet: the answer is empty, never the screen's first line.
    client.send({ type: 'history' });
    const empty = await until(() => histories()[0], 'the first history answer');
    expect(empty).toEqual({ type: 'history', cols: 40, rows: [] });

    // 300 lines in one burst (far more than a screen between two frames), the first two red in one SGR.
    client.input("clear; printf '\\033[31mred-1\\nred-2\\033[0m\\n'; seq -f 'h%03g' 1 300\r");
    await client.until((screen) => screen.text().includes('h300') && /[$#] ?$/m.test(screen.text()));
    client.send({ type: 'history' });
    // At most one capture a second: this one is answered once a second has passed since the first.
    const answer = await until(() => histories()[1], 'the second history answer');
    expect(answer.cols).toBe(40);
    expect(answer.rows.every((row) => row.length === 40)).toBe(true);
    const text = (row: Cell[]) =>
      row
        .map((cell) => (cell === 0 ? ' ' : (cell.t ?? ' ')))
        .join('')
        .trimEnd();
    const lines = [...answer.rows.map(text), ...client.screen.text().split('\n')].filter((line) =>
      /^h\d{3}$/.test(line),
    );
    expect(lines).toEqual(Array.from({ length: 300 }, (_, i) => `h${String(i + 1).padStart(3, '0')}`));
    const red2 = answer.rows.find((row) => text(row) === 'red-2')!;
    expect(red2[0]).toEqual({ t: 'r', f: 1 });

    // A burst of requests costs two captures: the one it starts and one for those that came meanwhile.
    for (let i = 0; i < 5; i++) client.send({ type: 'history' });
    await until(() => histories().length === 4, 'two more history answers');
    // Long enough for a fifth answer, were one coming (the captures are a second apart).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(histories()).toHaveLength(4);
    await client.close();
  });

  it('keeps the newest rows of a history whose JSON would pass 1 MiB, as many as fit', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { cols: 200, rows: 6 });
    await prompt(client);
    // 1,500 red lines of 195 cells: ~3 KiB of JSON a row, ~4.6 MiB in all.
    client.input(
      `clear; awk 'BEGIN { for (i = 1; i <= 1500; i++) { printf "\\033[31mL%04d", i; for (j = 0; j < 190; j++) printf "x"; printf "\\033[0m\\n" } }'\r`,
    );
    await client.until((screen) => screen.text().includes('L1500') && /[$#] ?$/m.test(screen.text()), 30_000);
    client.send({ type: 'history' });
    const answer = await until(
      () => client.frames.find((frame): frame is HistoryFrame => frame.type === 'history'),
      'the history answer',
    );
    const sizes = answer.rows.map((row) => JSON.stringify(row).length + 1);
    const bytes = sizes.reduce((sum, size) => sum + size, 0);
    expect(bytes).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
    // As many as fit: one more row of the same size would pass the cap.
    expect(bytes + sizes[0]!).toBeGreaterThan(HISTORY_MAX_BYTES);
    const numbers = answer.rows.map((row) =>
      Number(/^L(\d{4})/.exec(row.map((c) => (c === 0 ? ' ' : (c.t ?? ' '))).join(''))?.[1]),
    );
    const lastAbove = Number(/L(\d{4})/.exec(client.screen.text())?.[1]) - 1;
    // The newest: contiguous, ending with the line just above the screen.
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => lastAbove - numbers.length + 1 + i));
    expect(answer.rows.at(-1)![5]).toEqual({ t: 'x', f: 1 });
    await client.close();
  });

  it('keeps a style that runs across lines through the seed of a new connection', async () => {
    const name = await activeWorkspace();
    const first = await open(name, { cols: 40, rows: 8 });
    await prompt(first);
    // One SGR for two lines: tmux's capture carries it over the line break, as the pane did.
    first.input("clear; printf '\\033[31mtop\\nnext\\033[0m\\n'\r");
    await first.until((screen) => screen.text().includes('next'));
    await first.close();
    const second = await open(name, { cols: 40, rows: 8 });
    await second.until((screen) => screen.text().includes('next'));
    const row = second.screen.cells.find(
      (cells) => (cells[0] as CellObject | 0) !== 0 && (cells[0] as CellObject).t === 'n',
    )!;
    expect(row[0]).toEqual({ t: 'n', f: 1 });
    await second.close();
  });

  it('a patch out of sequence makes the client resync once and recover', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    client.screen.seq -= 1; // pretend one frame was lost
    client.input('echo after-gap\r');
    await client.until((screen) => screen.text().includes('after-gap'));
    expect(client.frames.filter((f) => f.type === 'grid').length).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  it('reconstructs colours (16, 256, truecolor), attributes, underline styles, wide characters and the cursor exactly', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { cols: 80, rows: 10 });
    await prompt(client);
    client.input(
      "clear; printf '\\033[31mR\\033[0m\\033[38;5;202mO\\033[0m\\033[38;2;10;200;30mG\\033[0m\\033[48;5;21mB\\033[0m\\033[1;3mI\\033[0m\\033[4:3mC\\033[0m\\033[9;53mS\\033[0m\\033[2;7mF\\033[0m漢字😀x\\n'; printf '\\033[?25l'; sleep 30\r",
    );
    await client.until((screen) => screen.rowText(0).startsWith('ROGBICSF漢字😀x') && !screen.cursor.visible);
    const row = client.screen.cells[0]!;
    const cell = (x: number) => row[x] as CellObject;
    expect(cell(0)).toEqual({ t: 'R', f: 1 });
    expect(cell(1)).toEqual({ t: 'O', f: 202 });
    expect(cell(2)).toEqual({ t: 'G', f: [10, 200, 30] });
    expect(cell(3)).toEqual({ t: 'B', b: 21 });
    expect(cell(4)).toEqual({ t: 'I', a: 1 | 4 });
    expect(cell(5)).toEqual({ t: 'C', u: 3 });
    expect(cell(6)).toEqual({ t: 'S', a: 64 | 128 });
    expect(cell(7)).toEqual({ t: 'F', a: 2 | 16 });
    expect(cell(8)).toEqual({ t: '漢', w: 1 });
    expect(cell(9)).toEqual({ w: 2 });
    expect(cell(10)).toEqual({ t: '字', w: 1 });
    expect(cell(12)).toEqual({ t: '😀', w: 1 });
    expect(cell(13)).toEqual({ w: 2 });
    expect(cell(14)).toEqual({ t: 'x' });
    expect(row[15]).toBe(0);
    expect(client.screen.cursor).toMatchObject({ visible: false, y: 1, x: 0 });
    await client.close();
  });

  it("carries the application's bracketed-paste mode in its frames, across a resize's re-seed", async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    // bash's readline asks for bracketed paste at each prompt and turns it off while a command runs. The
    // first prompt came before this terminal attached (tmux keeps no such mode to ask for); the next one is seen.
    client.input('true\r');
    await client.until((screen) => screen.bracketedPaste);
    client.send({ type: 'resize', cols: 70, rows: 20 });
    // The re-seed resets the emulator; the mode it had learnt is written back with the pane's screen.
    await client.until((screen) => screen.cols === 70 && screen.bracketedPaste);
    client.input('cat\r');
    await client.until((screen) => !screen.bracketedPaste);
    client.input('\x04');
    await client.until((screen) => screen.bracketedPaste);
    await client.close();
  });

  it('a second connection to the same session gets exit 1 and is closed; the slot frees when the first closes', async () => {
    const name = await activeWorkspace();
    const first = await open(name);
    await first.waitForFrames(1);
    const second = await open(name);
    expect(await second.exit).toBe(1);
    // The close's reason tells this refusal apart from a missing or inactive workspace (below).
    expect(await second.closed).toEqual({ code: 1000, reason: 'Terminal open elsewhere' });
    await first.close();
    // No outside signal says the ship has released the first terminal once the close handshake ends: give its close
    // handler a turn.
    await new Promise((r) => setTimeout(r, 50));
    const third = await open(name);
    await third.waitForFrames(1);
    expect(third.frames[0]!.type).toBe('grid');
    await third.close();
  });

  it('a missing or inactive workspace gets exit 1', async () => {
    const missing = await connectTerminal(terminalUrl(ship.url, 'term', 'nope'));
    expect(await missing.exit).toBe(1);
    const name = await activeWorkspace();
    await call(ship.url, 'POST', path('term', name, '/deactivate'));
    const inactive = await open(name);
    expect(await inactive.exit).toBe(1);
    expect(await inactive.closed).toEqual({ code: 1000, reason: '' });
  });

  it('sends the shell exit code and closes', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    client.input('exit 7\r');
    expect(await client.exit).toBe(7);
    expect((await client.closed).code).toBe(1000);
  });

  it('deactivating the workspace ends its terminal with exit', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    await call(ship.url, 'POST', path('term', name, '/deactivate'));
    expect(typeof (await client.exit)).toBe('number');
    await client.closed;
  });

  it('paces: at most two unacknowledged frames, then one full snapshot after the ack timeout', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { autoAck: false });
    await client.waitForFrames(1);
    client.input('while :; do date +%N; done\r');
    await client.waitForFrames(2);
    // A window, not a condition: without an ack nothing may arrive for half the ack timeout.
    await new Promise((r) => setTimeout(r, ACK_TIMEOUT_MS / 2));
    expect(client.frames.length).toBe(2);
    await client.waitForFrames(3, ACK_TIMEOUT_MS * 3);
    expect(client.frames[2]).toMatchObject({ type: 'grid', seq: 2 });
    await client.waitForFrames(4, ACK_TIMEOUT_MS * 3);
    expect(client.frames[3]).toMatchObject({ type: 'patch', seq: 3 });
    // A window, not a condition: again nothing may arrive unacked for half the ack timeout.
    await new Promise((r) => setTimeout(r, ACK_TIMEOUT_MS / 2));
    expect(client.frames.length).toBe(4);
    // Acking resumes the stream at once.
    client.send({ type: 'ack', seq: 3 });
    await client.waitForFrames(5, ACK_TIMEOUT_MS / 2);
    client.input('\u0003');
    await client.close();
  });

  it('coalesces a burst: a large cat costs a few frames, not one per chunk', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { cols: 120, rows: 40 });
    await prompt(client);
    const before = client.frames.length;
    client.input("seq 1 200000 | tr '\\n' ' ' | fold -w 100; echo; echo burst-done\r");
    await client.until((screen) => /^burst-done$/m.test(screen.text()), 30_000);
    expect(client.frames.length - before).toBeLessThan(400);
    await client.close();
  });

  it('negotiates permessage-deflate when the client offers it', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { perMessageDeflate: true });
    await client.waitForFrames(1);
    expect(client.socket.extensions).toContain('permessage-deflate');
    await client.close();
  });
});

describe('terminal with and without permessage-deflate (issue #18)', () => {
  it('negotiates deflate exactly when offered; the large grid comes compressed, small patches as they are, the same screen either way', async () => {
    const name = await activeWorkspace();
    const filler = await open(name, { cols: 160, rows: 40 });
    await prompt(filler);
    filler.input(FILL_SCREEN);
    await filler.until(isFilled);
    await filler.close();
    const grids: GridFrame[] = [];
    for (const deflate of [false, true]) {
      const terminal = await tappedTerminal(terminalUrl(ship.url, 'term', name), { deflate, cols: 160, rows: 40 });
      if (deflate) {
        expect(terminal.client.extensionsHeader).toMatch(/^permessage-deflate\b/);
        expect(terminal.client.socket.extensions).toContain('permessage-deflate');
      } else {
        expect(terminal.client.extensionsHeader).toBeUndefined();
        expect(terminal.client.socket.extensions).toBe('');
      }
      await terminal.until(isFilled);
      // The grid of the filled screen: large, so compressed whenever deflate was negotiated.
      const index = terminal.frames.map((frame) => frame.type).lastIndexOf('grid');
      expect(terminal.client.texts[index]!.length).toBeGreaterThan(10_000);
      expect(terminal.client.wire[index]!.compressed).toBe(deflate);
      expect(offRule(terminal.client, deflate)).toEqual([]);
      grids.push(terminal.frames[index] as GridFrame);
      await terminal.client.close();
      // Let the ship release this terminal before the next one opens (no outside signal for it).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The same screen seeded twice from tmux: identical cells whether or not they travelled compressed.
    expect(grids[1]!.cells).toEqual(grids[0]!.cells);
    for (const deflate of [false, true]) {
      const terminal = await tappedTerminal(terminalUrl(ship.url, 'term', name), { deflate, cols: 160, rows: 40 });
      await terminal.until((screen) => /[$#] ?$/m.test(screen.text()));
      // Clearing redraws the screen (one large patch after the filled one, compressed when negotiated:
      // offRule checks it), down to the prompt alone.
      terminal.input('clear\r');
      await terminal.until((screen) => /^\S*[$#]$/.test(screen.text().trim()));
      // Quiet, not a condition: the clear's last patches land before the frames below are counted as the typing's.
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Typing on the cleared screen: a short line and its echo are a few small patches, never compressed.
      const before = terminal.frames.length;
      terminal.input(`echo sm''all-${deflate}-$((3*5))\r`);
      await terminal.until((screen) => new RegExp(`^small-${deflate}-15$`, 'm').test(screen.text()));
      expect(terminal.frames.length).toBeGreaterThan(before);
      expect(terminal.frames.slice(before).every((frame) => frame.type === 'patch')).toBe(true);
      expect(terminal.client.texts.slice(before).every((text) => text.length < 1024)).toBe(true);
      expect(offRule(terminal.client, deflate)).toEqual([]);
      await terminal.client.close();
      // Let the ship release this terminal before the next one opens (no outside signal for it).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});

describe('terminal under hostile output (issue #14, docs/security.md F1/H11)', () => {
  /** The pane as tmux holds it: `capture-pane -p` rows (trailing blanks trimmed) and the cursor. */
  async function tmuxPane(name: string): Promise<{ text: string; cursor: { x: number; y: number } }> {
    const target = `=${sessionName('term', name)}:`;
    const capture = await ship.ship.tmux.run(['capture-pane', '-p', '-t', target]);
    const cursor = await ship.ship.tmux.run(['display-message', '-p', '-t', target, '#{cursor_x} #{cursor_y}']);
    const [x, y] = cursor.stdout.trim().split(' ').map(Number);
    const text = capture.stdout
      .replace(/\n$/, '')
      .split('\n')
      .map((row) => row.replace(/\s+$/, ''))
      .join('\n');
    return { text, cursor: { x: x!, y: y! } };
  }

  it("after `printf 'a\\033[100000000b'` the screen equals tmux capture-pane, while another workspace echoes promptly", async () => {
    const hostile = await activeWorkspace();
    const other = await activeWorkspace();
    const a = await open(hostile, { cols: 80, rows: 24 });
    const b = await open(other, { cols: 80, rows: 24 });
    await Promise.all([prompt(a), prompt(b)]);
    // The client's 80 columns are the pane's by the time the first screen arrives (a resize sent while tmux
    // was still attaching the control client used to be lost: the pane stayed 120 wide).
    const paneWidth = await ship.ship.tmux.run([
      'display-message',
      '-p',
      '-t',
      `=${sessionName('term', hostile)}:`,
      '#{pane_width}',
    ]);
    expect(paneWidth.stdout.trim()).toBe('80');
    // Two seconds of H11's sequences (REP, and IL in a full-screen region), each of which would hold an
    // unclamped emulator for seconds, then the printf on a cleared screen.
    a.input(
      "for i in $(seq 40); do printf 'a\\033[100000000b\\033[1;24r\\033[100000000L\\033[r'; sleep 0.05; done; " +
        "clear; printf 'a\\033[100000000b'\r",
    );
    // Meanwhile workspace B's keystrokes echo: a stalled event loop would hold them for seconds.
    const echoMs: number[] = [];
    let typed = '';
    for (const key of 'echoprompt') {
      typed += key;
      const started = Date.now();
      b.input(key);
      await b.until((screen) => new RegExp(`[$#] ${typed}$`, 'm').test(screen.text()), 10_000);
      echoMs.push(Date.now() - started);
      // Pacing: one keystroke at a time, as a person types, so each echo is timed alone.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Math.max(...echoMs), `echo times ${echoMs.join(', ')} ms`).toBeLessThanOrEqual(500);
    // tmux shows a full row of a's (it repeats up to the right margin) and the prompt below it.
    const row = 'a'.repeat(80);
    let pane = await tmuxPane(hostile);
    const drawn = async () => {
      pane = await tmuxPane(hostile);
      return pane.text.startsWith(`${row}\n`) && /[$#]$/m.test(pane.text);
    };
    await settles(until(drawn, 'the row of a and the prompt in the pane', 10_000, 100));
    expect(pane.text.split('\n')[0]).toBe(row);
    await settles(a.until((screen) => screen.text() === pane.text, 5_000));
    expect(a.screen.text()).toBe(pane.text);
    expect({ x: a.screen.cursor.x, y: a.screen.cursor.y }).toEqual(pane.cursor);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('terminal close codes', () => {
  it('closes 1008 "terminal init timeout" without an init', async () => {
    const name = await activeWorkspace();
    const client = await open(name, { skipInit: true });
    expect(await client.closed).toEqual({ code: 1008, reason: 'terminal init timeout' });
  });

  it.each([
    ['a non-init first message', [{ type: 'input', data: 'x' }]],
    [
      'a second init',
      [
        { type: 'init', cols: 80, rows: 24 },
        { type: 'init', cols: 80, rows: 24 },
      ],
    ],
    ['an unknown type', [{ type: 'init', cols: 80, rows: 24 }, { type: 'dance' }]],
    ['cols out of bounds', [{ type: 'init', cols: 0, rows: 24 }]],
    ['rows out of bounds', [{ type: 'init', cols: 80, rows: 513 }]],
    ['non-integer cols', [{ type: 'init', cols: 80.5, rows: 24 }]],
    [
      'a resize out of bounds',
      [
        { type: 'init', cols: 80, rows: 24 },
        { type: 'resize', cols: 1025, rows: 24 },
      ],
    ],
    [
      'a negative ack',
      [
        { type: 'init', cols: 80, rows: 24 },
        { type: 'ack', seq: -1 },
      ],
    ],
    [
      'input over 256 KiB',
      [
        { type: 'init', cols: 80, rows: 24 },
        { type: 'input', data: 'é'.repeat(128 * 1024 + 1) },
      ],
    ],
  ])('closes 1008 "Invalid terminal message" for %s', async (_label, messages) => {
    const name = await activeWorkspace();
    const { socket, closed } = await rawSocket(name);
    for (const message of messages) socket.send(JSON.stringify(message));
    expect(await closed).toEqual({ code: 1008, reason: 'Invalid terminal message' });
  });

  it('closes 1008 for undecodable text', async () => {
    const name = await activeWorkspace();
    const { socket, closed } = await rawSocket(name);
    socket.send('{not json');
    expect(await closed).toEqual({ code: 1008, reason: 'Invalid terminal message' });
  });

  it('closes 1003 for a binary frame', async () => {
    const name = await activeWorkspace();
    const { socket, closed } = await rawSocket(name);
    socket.send(Buffer.from(JSON.stringify({ type: 'init', cols: 80, rows: 24 })), { binary: true });
    expect(await closed).toEqual({ code: 1003, reason: 'Binary terminal messages are not supported' });
  });

  it('accepts input of exactly 256 KiB and closes 1009 for a message over the 1,572,992-byte payload limit', async () => {
    const name = await activeWorkspace();
    const client = await open(name);
    await prompt(client);
    client.input('stty -icanon -echo; cat > /dev/null; stty sane; echo still-here\r');
    // `cat` with echo off shows nothing to wait for: give the shell a moment to start it.
    await new Promise((r) => setTimeout(r, 300));
    client.input('a'.repeat(256 * 1024));
    // Pacing: let the pasted input drain into cat before the interrupt.
    await new Promise((r) => setTimeout(r, 300));
    client.input('\u0003');
    await client.until((screen) => screen.text().includes('still-here'), 20_000);
    client.socket.send('x'.repeat(1_572_993));
    expect((await client.closed).code).toBe(1009);
  });
});
