// The probe the end-to-end terminal benchmark installs in the GUI's terminal page before its scripts (plain
// JavaScript: bench/ is compiled without the DOM's types). It wraps WebSocket for the terminal socket: the
// size the page asked for in `init`, the time the page sent an input holding `window.__e2e.start`'s text,
// every grid/patch `seq` (a gap is a frame the ship sent that never reached the page), and the resyncs it
// asked for. Each animation frame it looks for `window.__e2e.want` in xterm.js's rows and takes that
// frame's time: the screen is drawn.

export interface GuiTerminalProbe {
  init: { cols: number; rows: number } | null;
  frames: number;
  gaps: number;
  resyncs: number;
  lastSeq: number;
  start: string | null;
  startedAt: number | null;
  want: string | null;
  drawnAt: number | null;
}

export function guiTerminalProbeScript(token: string): string {
  return `(() => {
  const probe = { init: null, frames: 0, gaps: 0, resyncs: 0, lastSeq: -1, start: null, startedAt: null, want: null, drawnAt: null };
  window.__e2e = probe;
  localStorage.setItem('svc.bridge.token', ${JSON.stringify(token)});
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (!new URL(String(url), location.href).pathname.endsWith('/terminal')) return;
      this.addEventListener('message', (message) => {
        if (typeof message.data !== 'string') return;
        const head = message.data.slice(0, 40);
        const match = /"seq":(\\d+)/.exec(head);
        if (!match) return;
        const seq = Number(match[1]);
        // seq counts from 0 on each connection (docs/terminal.md); a grid does not restart it.
        if (seq === 0) probe.lastSeq = -1;
        if (seq !== probe.lastSeq + 1) probe.gaps++;
        probe.lastSeq = seq;
        probe.frames++;
      });
    }
    send(data) {
      if (typeof data === 'string') {
        if (data.includes('"init"')) { const m = JSON.parse(data); probe.init = { cols: m.cols, rows: m.rows }; }
        if (data.includes('"resync"')) probe.resyncs++;
        if (probe.start !== null && probe.startedAt === null && data.includes(probe.start)) probe.startedAt = performance.now();
      }
      return super.send(data);
    }
  };
  const tick = (time) => {
    if (probe.want !== null && probe.drawnAt === null) {
      const rows = document.querySelector('.xterm-rows');
      if (rows && rows.textContent.includes(probe.want)) probe.drawnAt = performance.now();
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;
}
