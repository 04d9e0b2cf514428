// "From an issue" in the create form (issue #31): the repo's open issues from its forge (GET
// /repos/:name/issues), searchable by number, title or author, as one radio group, and a preview of the
// branch the bridge will create for the chosen one: the bridge's own rule (protocol/issue-branch.ts). The
// bridge may instead reuse a branch of that name already linked to the issue; the name is the same.
import { useId, useMemo, useState } from 'react';
import { issueBranchName } from '../../../protocol/issue-branch.js';
import { useIssues } from '../hooks/use-fleet.js';
import { ErrorMessage } from './error-message.js';
import { Text } from './text.js';

/** At most this many issues are listed; the search narrows them. */
const MAX_SHOWN = 100;

export function IssuePicker({
  repo,
  value,
  onChange,
}: {
  repo: string;
  value: number | null;
  onChange: (issue: number | null) => void;
}) {
  const issues = useIssues(repo);
  const [search, setSearch] = useState('');
  const previewId = useId();
  const matching = useMemo(() => {
    const needle = search.trim().toLowerCase().replace(/^#/, '');
    return (issues.data ?? []).filter(
      (issue) =>
        needle === '' ||
        String(issue.number).startsWith(needle) ||
        issue.title.toLowerCase().includes(needle) ||
        (issue.author ?? '').toLowerCase().includes(needle),
    );
  }, [issues.data, search]);
  const chosen = issues.data?.find((issue) => issue.number === value);

  if (repo === '') return <p className="muted">Choose a repo to see its open issues.</p>;
  return (
    <div className="issue-picker">
      <label>
        Search issues
        <input
          name="issue-search"
          type="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          placeholder="number, title or author"
        />
      </label>
      <ErrorMessage error={issues.error} />
      {issues.loading && !issues.data && <p className="muted">Asking the forge for the open issues…</p>}
      {issues.data && (
        <fieldset className="issue-list" aria-describedby={previewId}>
          <legend>
            Open issues of <Text value={repo} /> (
            {matching.length === issues.data.length
              ? issues.data.length
              : `${matching.length} of ${issues.data.length}`}
            )
          </legend>
          {matching.length === 0 && (
            <p className="muted">
              {issues.data.length === 0 ? 'The repo has no open issue.' : 'No open issue matches.'}
            </p>
          )}
          {matching.slice(0, MAX_SHOWN).map((issue) => (
            <label
              key={issue.number}
              className={`issue${issue.number === value ? ' chosen' : ''}`}
              data-issue={issue.number}
            >
              <input
                type="radio"
                name="issue"
                value={issue.number}
                checked={issue.number === value}
                onChange={() => onChange(issue.number)}
                required
              />
              <span className="issue-number">#{issue.number}</span> <Text value={issue.title} />
              {issue.author && (
                <span className="muted">
                  {' '}
                  by <Text value={issue.author} />
                </span>
              )}
            </label>
          ))}
          {matching.length > MAX_SHOWN && (
            <p className="muted">{matching.length - MAX_SHOWN} more: narrow the search.</p>
          )}
        </fieldset>
      )}
      <p id={previewId} className="field-note" aria-live="polite">
        {chosen ? (
          <>
            Branch{' '}
            <strong className="mono" data-testid="branch-preview">
              <Text value={issueBranchName(chosen.number, chosen.title)} />
            </strong>{' '}
            will be created on the forge and linked to issue #{chosen.number}.
          </>
        ) : (
          'Choose an issue: its branch name is shown here.'
        )}
      </p>
    </div>
  );
}
