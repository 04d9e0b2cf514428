// The branch field of the create form and of Switch branch (issue #31): a combobox (WAI-ARIA 1.2 pattern:
// an input with a list it filters, arrow keys move, Enter picks, Escape closes) fed by the remote's
// branches of `repo` (GET /repos/:name/branches, read here as the issue picker reads its issues). Free text is allowed: a name the remote does not have is a new
// branch, and the line under the field says so (`newBranchNote`), live, as the user types.
import { useId, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useBranches } from '../hooks/use-fleet.js';
import { Text } from './text.js';

/** At most this many suggestions are listed; typing narrows them. */
const MAX_SHOWN = 50;

export function BranchCombobox({
  label,
  name,
  repo,
  value,
  onChange,
  newBranchNote,
  required,
}: {
  label: string;
  name: string;
  /** The repo whose remote branches are suggested (none while empty). */
  repo: string;
  value: string;
  onChange: (value: string) => void;
  /** What happens to a name the remote does not have, e.g. "will be created from the default branch". */
  newBranchNote: string;
  required?: boolean;
}) {
  const { data: branches, loading, error } = useBranches(repo);
  const id = useId();
  const listId = `${id}-list`;
  const noteId = `${id}-note`;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const names = useMemo(() => (branches ?? []).map((branch) => branch.name), [branches]);
  const needle = value.trim().toLowerCase();
  const matches = useMemo(
    () => names.filter((branch) => branch.toLowerCase().includes(needle)).slice(0, MAX_SHOWN),
    [names, needle],
  );
  const expanded = open && matches.length > 0;
  const exists = names.includes(value.trim());

  const pick = (branch: string) => {
    onChange(branch);
    setOpen(false);
    setActive(-1);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setOpen(true);
      setActive((current) => Math.min(current + 1, matches.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((current) => Math.max(current - 1, 0));
    } else if (event.key === 'Enter' && expanded && active >= 0 && matches[active] !== undefined) {
      event.preventDefault();
      pick(matches[active]!);
    } else if (event.key === 'Escape' && expanded) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  };

  let note: ReactNode;
  if (error) note = <Text value={`branches unavailable: ${error}`} />;
  else if (value.trim() === '')
    note = loading
      ? 'Asking the remote for its branches…'
      : `${names.length} branch${names.length === 1 ? '' : 'es'} on the remote; type to filter, or a new name.`;
  else if (exists) note = 'An existing branch on the remote.';
  else
    note = (
      <>
        New branch{' '}
        <strong className="mono">
          <Text value={value.trim()} />
        </strong>
        : not on the remote, it {newBranchNote}.
      </>
    );

  return (
    <div className="combobox">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={expanded && active >= 0 ? `${id}-option-${active}` : undefined}
        aria-describedby={noteId}
        autoComplete="off"
        spellCheck={false}
        value={value}
        required={required}
        onChange={(event) => {
          onChange(event.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {/* The ARIA combobox pattern: a ul listbox of li options, focus kept on the input (aria-activedescendant). */}
      {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the combobox pattern's listbox */}
      <ul id={listId} role="listbox" aria-label={`${label} suggestions`} className="combobox-list" hidden={!expanded}>
        {matches.map((branch, index) => (
          // biome-ignore lint/a11y/useFocusableInteractive: an option is active by aria-activedescendant, not focus
          <li
            key={branch}
            id={`${id}-option-${index}`}
            // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the combobox pattern's option
            role="option"
            aria-selected={index === active}
            className={index === active ? 'active' : undefined}
            // mousedown, not click: the input keeps focus (its blur would close the list first).
            onMouseDown={(event) => {
              event.preventDefault();
              pick(branch);
            }}
          >
            <Text value={branch} />
          </li>
        ))}
      </ul>
      <p
        id={noteId}
        className={`field-note${!exists && value.trim() !== '' && !error ? ' new-branch' : ''}`}
        data-testid={`${name}-note`}
        aria-live="polite"
      >
        {note}
      </p>
    </div>
  );
}
