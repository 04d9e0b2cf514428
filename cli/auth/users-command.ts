// `svc users` (docs/cli.md): list, add (password asked twice, never an argument), remove, change a role,
// a password or an email, through the bridge's /users routes with the stored session. Whatever can refuse
// the command is checked before a password is asked for: a stdin that is no terminal, and for `add` a name or
// email the bridge already has (issue #15), so nobody types a password twice to read a 409.
import { Argument, Command, Option } from 'commander';
import type { User } from '../../protocol/index.js';
import { svcCommand } from '../invocation.js';
import { askNewPassword, interactive } from '../prompt.js';
import { formatTable } from '../table.js';
import { BridgeClient } from './bridge-client.js';
import { readSession } from './session-files.js';

const userPath = (name: string, suffix = '') => `/users/${encodeURIComponent(name)}${suffix}`;

/** Passwords are typed at a terminal, never piped nor given as arguments (spec "First admin" rule 4). */
function requireTerminal(command: string): void {
  if (interactive()) return;
  const missing = process.stdin.isTTY ? 'stderr' : 'stdin';
  throw new Error(
    `the password is read from a terminal, and ${missing} is not one; run \`${svcCommand()} ${command}\` at a terminal`,
  );
}

/**
 * Refuses a username or email the bridge already has, compared as its unique indexes compare them
 * (case-insensitively), with the words of its own 409. The POST still decides; this only spares the prompts.
 */
async function refuseDuplicate(bridge: BridgeClient, username: string, email: string): Promise<void> {
  const existing = await bridge.call<User[]>('GET', '/users');
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (existing.some((user) => same(user.username, username))) throw new Error(`user already exists: ${username}`);
  if (existing.some((user) => same(user.email, email))) throw new Error(`email already in use: ${email}`);
}

export function usersCommand(): Command {
  const users = new Command('users')
    .description("manage the bridge's users (admins; anyone may change their own password or email)")
    .option('--bridge-url <bridge>', 'the bridge (4800, host:port or a URL)', '4800')
    .option('--json', 'print JSON instead of tables');
  const client = () => new BridgeClient(users.opts<{ bridgeUrl: string }>().bridgeUrl);
  const json = () => users.opts<{ json?: boolean }>().json === true;
  const print = (user: User): void =>
    void process.stdout.write(
      json() ? `${JSON.stringify(user)}\n` : `${user.username} <${user.email}> (${user.role})\n`,
    );

  users
    .command('ls')
    .description('list users, oldest first')
    .action(async () => {
      const list = await client().call<User[]>('GET', '/users');
      if (json()) process.stdout.write(`${JSON.stringify(list)}\n`);
      else
        process.stdout.write(
          formatTable(
            ['USERNAME', 'EMAIL', 'ROLE', 'CREATED'],
            list.map((u) => [u.username, u.email, u.role, new Date(u.createdAt).toISOString()]),
          ),
        );
    });

  users
    .command('add')
    .description('create a user; the password is asked twice')
    .argument('<username>')
    .argument('<email>')
    .addOption(new Option('--role <role>', 'role').choices(['member', 'admin']).default('member'))
    .action(async (username: string, email: string, options: { role: string }) => {
      requireTerminal('users add');
      const bridge = client();
      await refuseDuplicate(bridge, username, email); // logs in first, so the prompts come in a sensible order
      const password = await askNewPassword('New password: ');
      print(await bridge.call<User>('POST', '/users', { username, email, password, role: options.role }));
    });

  users
    .command('rm')
    .description('remove a user and end their sessions')
    .argument('<username>')
    .action(async (username: string) => {
      await client().call('DELETE', userPath(username));
      process.stdout.write(`removed ${username}\n`);
    });

  users
    .command('role')
    .description("change a user's role")
    .argument('<username>')
    .addArgument(new Argument('<role>', 'member or admin').choices(['member', 'admin']))
    .action(async (username: string, role: string) =>
      print(await client().call<User>('POST', userPath(username, '/role'), { role })),
    );

  users
    .command('passwd')
    .description('change a password (yours when no user is named); ends every session of that user')
    .argument('[username]')
    .action(async (username?: string) => {
      requireTerminal('users passwd');
      const bridge = client();
      const name =
        username ?? readSession(bridge.url)?.username ?? (await bridge.call<User>('GET', '/auth/me')).username;
      await bridge.token();
      const password = await askNewPassword('New password: ');
      await bridge.call('POST', userPath(name, '/password'), { password });
      process.stdout.write(`password changed for ${name}; their sessions have ended\n`);
    });

  users
    .command('email')
    .description("change a user's email")
    .argument('<username>')
    .argument('<email>')
    .action(async (username: string, email: string) =>
      print(await client().call<User>('POST', userPath(username, '/email'), { email })),
    );
  return users;
}
