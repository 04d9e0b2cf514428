// A terminal socket the test drives by hand (web/src/terminal/terminal-session.ts's SocketLike): it records
// what the client sent, opens, delivers frames and closes when told. A second close is ignored, as a
// WebSocket ignores it.
import type { SocketLike } from '../../web/src/terminal/terminal-session.js';

export class ScriptedSocket implements SocketLike {
  readyState = 0;
  sent: any[] = [];
  private listeners: Record<string, ((event: any) => void)[]> = {};
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1000, reason = '') {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close', { code, reason });
  }
  addEventListener(type: string, listener: (event: any) => void) {
    this.listeners[type] ??= [];
    this.listeners[type].push(listener);
  }
  emit(type: string, event: unknown) {
    for (const listener of this.listeners[type] ?? []) listener(event);
  }
  open() {
    this.readyState = 1;
    this.emit('open', {});
  }
  frame(frame: unknown) {
    this.emit('message', { data: JSON.stringify(frame) });
  }
  /** The data of every input message sent, in order. */
  inputs(): string[] {
    return this.sent.filter((message) => message.type === 'input').map((message) => message.data);
  }
}
