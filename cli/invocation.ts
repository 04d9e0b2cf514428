// How the user ran svc, so every hint names a command they can type as it is: `npx svc …` when it runs
// through npm exec (npx puts npm_command=exec in the environment of what it runs), `svc …` when it is
// installed on PATH (`npm install -g .` in the checkout, README "Installing the CLI").
export function svcCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.npm_command === 'exec' ? 'npx svc' : 'svc';
}
