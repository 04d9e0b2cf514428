// `dotfile-map.json`: a flat object from a source (a safe path relative to the dotfiles section) to a
// destination (`~/…` or absolute, no control characters, no `..`). Every malformed entry is reported at once;
// one fails the whole manifest (spec 400). Whether `dotfiles/` holds the source is not the map's form: a
// well-formed entry whose file is missing stays in the map (the scanner logs it, each ship reports it as an
// install warning), so deleting one dotfile never stops every ship's sync.
import { armoryPathProblem, messageOf } from '../../protocol/index.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: a destination with C0 or DEL is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

function destinationProblem(destination: unknown): string | null {
  if (typeof destination !== 'string') return 'destination must be a string';
  if (CONTROL.test(destination)) return 'destination contains a control character';
  if (!destination.startsWith('~/') && !destination.startsWith('/')) return 'destination must start with ~/ or /';
  const rest = destination.startsWith('~/') ? destination.slice(2) : destination.slice(1);
  const segments = rest.split('/');
  if (rest === '' || segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return 'destination must name a file without empty, "." or ".." segments';
  return null;
}

/** The parsed map, or the list of problems (each `"<source>": <reason>`, or one line for the whole file). */
export function parseDotfileMap(text: string): { map: Record<string, string> } | { problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problems: [`not JSON: ${messageOf(error)}`] };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { problems: ['must be a JSON object from source to destination'] };
  const problems: string[] = [];
  const map: Record<string, string> = {};
  for (const [source, destination] of Object.entries(parsed)) {
    const label = JSON.stringify(source);
    const sourceProblem = armoryPathProblem(source);
    const destProblem = destinationProblem(destination);
    if (sourceProblem) problems.push(`${label}: source: ${sourceProblem}`);
    if (destProblem) problems.push(`${label}: ${destProblem}`);
    if (!sourceProblem && !destProblem) map[source] = destination as string;
  }
  return problems.length ? { problems } : { map };
}
