// The parent's side of a bench worker process (fake ships, subscribers): forks `script` with one JSON
// argument, waits for its `{ready}` message (a `{error}` message or an exit before it fails the start), then
// sends numbered `{id, command}` requests and resolves each with the `{id, reply}` the worker answers.
import { fork } from 'node:child_process';

export interface Worker<Command, Ready> {
  ready: Ready;
  pid: number;
  call<T>(command: Command): Promise<T>;
  /** SIGTERM, resolved once it has exited. */
  stop(): Promise<void>;
}

export async function forkWorker<Command, Ready>(
  script: string,
  argument: unknown,
  what: string,
): Promise<Worker<Command, Ready>> {
  const child = fork(script, [JSON.stringify(argument)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (reply: unknown) => void>();
  let nextId = 0;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
    child.on('message', (message: { id?: number; ready?: Ready; error?: string; reply?: unknown }) => {
      if (message.error) return reject(new Error(message.error));
      if (message.ready) return resolve(message.ready);
      if (message.id !== undefined) {
        pending.get(message.id)?.(message.reply);
        pending.delete(message.id);
      }
    });
  });
  return {
    ready,
    pid: child.pid!,
    call: <T>(command: Command) =>
      new Promise<T>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve as (reply: unknown) => void);
        child.send({ id, command });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
