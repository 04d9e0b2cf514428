// `svc completion bash|zsh|fish`: shell completion generated from the command tree itself, so it never
// drifts from the commands. Completes subcommands and options at every level (zsh uses the bash script
// through bashcompinit). The scripts complete the `svc` command on PATH: under `npx` the completion is for
// the installed CLI (`npm install -g .`), which is said on stderr.
import { Argument, Command } from 'commander';
import { svcCommand } from './invocation.js';

interface Level {
  path: string;
  words: string[];
}

function levels(command: Command, path: string[] = []): Level[] {
  const words = [
    ...command.commands.map((sub) => sub.name()),
    ...command.options.flatMap((option) => [option.long, option.short].filter((f): f is string => Boolean(f))),
    '--help',
  ];
  return [{ path: path.join(' '), words }, ...command.commands.flatMap((sub) => levels(sub, [...path, sub.name()]))];
}

function bash(program: Command): string {
  const cases = levels(program)
    .map((level) => `    "${level.path}") words="${level.words.join(' ')}" ;;`)
    .join('\n');
  const commandNames = [
    ...new Set(
      levels(program)
        .flatMap((level) => level.path.split(' '))
        .filter(Boolean),
    ),
  ].join('|');
  return `# svc completion for bash: eval "$(svc completion bash)"
_svc_complete() {
  local cur path word words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=""
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in
      ${commandNames}) path="\${path:+$path }$word" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _svc_complete svc
`;
}

function zsh(program: Command): string {
  return `# svc completion for zsh: eval "$(svc completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

function fish(program: Command): string {
  const lines = [
    '# svc completion for fish: svc completion fish | source',
    'function __svc_path',
    '  set -l words (commandline -opc)',
    '  set -e words[1]',
    '  string join " " (string match -v -- "-*" $words)',
    'end',
  ];
  for (const level of levels(program)) {
    const commands = level.words.filter((word) => !word.startsWith('-'));
    if (commands.length)
      lines.push(`complete -c svc -f -n 'test "(__svc_path)" = "${level.path}"' -a '${commands.join(' ')}'`);
  }
  return `${lines.join('\n')}\n`;
}

export function completionCommand(program: () => Command): Command {
  return new Command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>').choices(['bash', 'zsh', 'fish']))
    .action((shell: 'bash' | 'zsh' | 'fish') => {
      const generators = { bash, zsh, fish };
      process.stdout.write(generators[shell](program()));
      if (svcCommand() !== 'svc') {
        process.stderr.write(
          'svc: this completes `svc` on PATH; install the CLI with `npm install -g .` in the checkout (README "Installing the CLI")\n',
        );
      }
    });
}
