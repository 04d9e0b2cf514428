// Reviewing a workspace's change (issue #28), loaded with the workspace page's first diff (it carries the
// diff view and the grammars): the spec's diff options as controls (staged, includeUntracked, range,
// paths), a file list with per-file counts, each file in react-diff-view (review/diff-file.tsx), and the
// comments collected on its lines, sent to the agent's session as one message (review/review-comments.ts)
// that the user sees before sending. The diff refetches itself when the live stream or the workspace's
// diff counts say it changed (pages/workspace-detail.tsx).
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { parseDiff, type ViewType } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import type { DiffOptions } from '../api/api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { Text } from '../components/text.js';
import { useAction } from '../hooks/use-action.js';
import { useDiff } from '../hooks/use-workspace.js';
import { useApi } from '../state/session.js';
import { DiffFile, fileCounts, filePath } from './diff-file.js';
import { reviewMessage, type ReviewComment } from './review-comments.js';
import './review.css';

export default function ReviewPanel({ repo, name }: { repo: string; name: string }) {
  const api = useApi();
  const [options, setOptions] = useState<DiffOptions>({});
  const [viewType, setViewType] = useState<ViewType>(() =>
    window.matchMedia('(min-width: 1100px)').matches ? 'split' : 'unified',
  );
  const diff = useDiff(repo, name, options);
  const files = useMemo(() => {
    try {
      return diff.data ? parseDiff(diff.data) : [];
    } catch {
      return [];
    }
  }, [diff.data]);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const sending = useAction();
  const [sent, setSent] = useState<number | null>(null);
  const message = reviewMessage(`${repo}/${name}`, comments);

  const addComment = useCallback((comment: ReviewComment) => {
    setSent(null);
    setComments((all) => [...all, comment]);
  }, []);
  const removeComment = useCallback(
    (id: string) => setComments((all) => all.filter((comment) => comment.id !== id)),
    [],
  );
  const send = () =>
    void sending
      .run(() => api.sendInput(repo, name, message))
      .then((ok) => {
        if (!ok) return;
        setSent(comments.length);
        setComments([]);
      });

  return (
    <section aria-label="review" className="review">
      <DiffControls options={options} onChange={setOptions} viewType={viewType} onViewType={setViewType} />
      <ErrorMessage error={diff.error} />
      {diff.data !== undefined && files.length === 0 && (
        <p className="muted" data-testid="no-changes">
          No changes{options.staged ? ' staged' : ''}.
        </p>
      )}
      {files.length > 0 && (
        <nav aria-label="changed files" className="file-list">
          <ul>
            {files.map((file) => {
              const path = filePath(file);
              const { added, removed } = fileCounts(file);
              return (
                <li key={path} data-path={path}>
                  <a href={`#file-${encodeURIComponent(path)}`}>
                    <Text value={path} className="mono" />
                  </a>{' '}
                  <span className="added">+{added}</span> <span className="removed">−{removed}</span>
                </li>
              );
            })}
          </ul>
        </nav>
      )}
      {(comments.length > 0 || sent !== null || sending.error) && (
        <section aria-label="pending review" className="pending-review">
          {comments.length > 0 && (
            <>
              <p>
                {comments.length} comment{comments.length === 1 ? '' : 's'} for the agent.{' '}
                <button type="button" onClick={send} disabled={sending.pending}>
                  {sending.pending
                    ? 'Sending…'
                    : `Send ${comments.length === 1 ? 'the comment' : `all ${comments.length}`} to the agent`}
                </button>
              </p>
              <details open>
                <summary>The message the agent receives</summary>
                <pre className="review-message" data-testid="review-message">
                  {message}
                </pre>
              </details>
            </>
          )}
          {sent !== null && comments.length === 0 && (
            <p role="status" className="muted">
              Sent {sent} comment{sent === 1 ? '' : 's'} to the session.
            </p>
          )}
          <ErrorMessage error={sending.error} />
        </section>
      )}
      {files.length > 0 && (
        <p className="muted hint">
          Click a line to comment on it; Shift+click another to comment on the lines between.
        </p>
      )}
      {files.map((file) => {
        const path = filePath(file);
        return (
          <DiffFile
            key={path}
            file={file}
            viewType={viewType}
            comments={comments.filter((comment) => comment.path === path)}
            onComment={addComment}
            onRemove={removeComment}
          />
        );
      })}
    </section>
  );
}

function DiffControls({
  options,
  onChange,
  viewType,
  onViewType,
}: {
  options: DiffOptions;
  onChange(options: DiffOptions): void;
  viewType: ViewType;
  onViewType(view: ViewType): void;
}) {
  const [range, setRange] = useState(options.range ?? '');
  const [paths, setPaths] = useState((options.paths ?? []).join(' '));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const list = paths.split(/\s+/).filter((path) => path !== '');
    onChange({ ...options, range: range.trim() || undefined, paths: list.length > 0 ? list : undefined });
  };
  return (
    <form className="diff-controls" aria-label="diff options" onSubmit={apply}>
      <fieldset className="segmented">
        <legend className="visually-hidden">View</legend>
        {(['unified', 'split'] as const).map((view) => (
          <label key={view} className="inline">
            <input
              type="radio"
              name="view"
              value={view}
              checked={viewType === view}
              onChange={() => onViewType(view)}
            />{' '}
            {view}
          </label>
        ))}
      </fieldset>
      <label className="inline">
        <input
          type="checkbox"
          name="staged"
          checked={options.staged ?? false}
          onChange={(event) => onChange({ ...options, staged: event.target.checked || undefined })}
        />{' '}
        staged
      </label>
      <label className="inline">
        <input
          type="checkbox"
          name="includeUntracked"
          checked={options.includeUntracked ?? false}
          onChange={(event) => onChange({ ...options, includeUntracked: event.target.checked || undefined })}
        />{' '}
        untracked files
      </label>
      <label>
        Range{' '}
        <input
          name="range"
          value={range}
          onChange={(event) => setRange(event.target.value)}
          placeholder="main...HEAD"
          size={14}
        />
      </label>
      <label>
        Paths{' '}
        <input
          name="paths"
          value={paths}
          onChange={(event) => setPaths(event.target.value)}
          placeholder="src/ docs/a.md"
          size={18}
        />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}
