// One file of the diff as a reviewer reads it (react-diff-view): unified or split, syntax coloured, the
// unchanged lines between hunks collapsed to a count, and comments: a click on a line selects it
// (Shift+click extends the run), a box under it takes the comment, and each added comment stays under its
// last line until sent or removed.
import { memo, useMemo, useState, type ReactElement, type ReactNode } from 'react';
import {
  Decoration,
  Diff,
  getChangeKey,
  Hunk,
  type ChangeData,
  type FileData,
  type HunkData,
  type ViewType,
} from 'react-diff-view';
import { highlightTokens } from './highlight.js';
import { commentOn, lineOf, rangeLabel, type ReviewComment } from './review-comments.js';
import { Text } from '../components/text.js';

export function filePath(file: FileData): string {
  return file.type === 'delete' ? file.oldPath : file.newPath;
}

export function fileCounts(file: FileData): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of file.hunks)
    for (const change of hunk.changes) {
      if (change.type === 'insert') added++;
      else if (change.type === 'delete') removed++;
    }
  return { added, removed };
}

interface DiffFileProps {
  file: FileData;
  viewType: ViewType;
  comments: readonly ReviewComment[];
  onComment(comment: ReviewComment): void;
  onRemove(id: string): void;
}

let nextId = 0;

export const DiffFile = memo(function DiffFile({ file, viewType, comments, onComment, onRemove }: DiffFileProps) {
  const path = filePath(file);
  const [selection, setSelection] = useState<ChangeData[]>([]);
  const [draft, setDraft] = useState('');
  const tokens = useMemo(() => highlightTokens(path, file.hunks), [path, file.hunks]);
  const changes = useMemo(() => file.hunks.flatMap((hunk) => hunk.changes), [file.hunks]);

  const select = ({ change }: { change: ChangeData | null }, event: { shiftKey: boolean }) => {
    if (!change) return;
    if (event.shiftKey && selection.length > 0) {
      const from = changes.indexOf(selection[0]!);
      const to = changes.indexOf(change);
      setSelection(changes.slice(Math.min(from, to), Math.max(from, to) + 1));
    } else setSelection([change]);
  };
  const events = { onClick: select };

  const widgets: Record<string, ReactNode> = {};
  for (const comment of comments) {
    const last = changes.find((change) => {
      const line = lineOf(change);
      return line.side === comment.side && line.line === comment.endLine;
    });
    if (!last) continue;
    const key = getChangeKey(last);
    widgets[key] = (
      <>
        {widgets[key]}
        <div className="review-comment" data-testid="review-comment">
          <span className="muted">{rangeLabel(comment)}</span> <Text value={comment.text} multiline />{' '}
          <button
            type="button"
            onClick={() => onRemove(comment.id)}
            aria-label={`Remove comment on ${path}, ${rangeLabel(comment)}`}
          >
            Remove
          </button>
        </div>
      </>
    );
  }
  const anchor = selection[selection.length - 1];
  if (anchor) {
    const key = getChangeKey(anchor);
    const lines = selection.map(lineOf);
    const add = () => {
      const comment = commentOn(`c${++nextId}`, path, lines, draft);
      if (!comment) return;
      onComment(comment);
      setDraft('');
      setSelection([]);
    };
    widgets[key] = (
      <>
        {widgets[key]}
        <form
          className="comment-form"
          aria-label={`comment on ${path}`}
          onSubmit={(event) => {
            event.preventDefault();
            add();
          }}
        >
          <textarea
            name="comment"
            rows={3}
            value={draft}
            // biome-ignore lint/a11y/noAutofocus: the box opens because the reader asked to comment here
            autoFocus
            onChange={(event) => setDraft(event.target.value)}
            placeholder={`Comment on ${path}, ${rangeLabel(commentOn('', path, lines, 'x')!)}`}
          />
          <button type="submit" disabled={draft.trim() === ''} aria-label={`Add comment on ${path}`}>
            Add comment
          </button>
          <button type="button" onClick={() => setSelection([])} aria-label={`Cancel comment on ${path}`}>
            Cancel
          </button>
        </form>
      </>
    );
  }

  const { added, removed } = fileCounts(file);
  return (
    <section className="diff-file" id={`file-${encodeURIComponent(path)}`} aria-label={`diff of ${path}`}>
      <header className="diff-file-head">
        <Text value={path} className="mono" /> <span className="added">+{added}</span>{' '}
        <span className="removed">−{removed}</span>
        {file.type !== 'modify' && <span className="badge">{file.type}</span>}
      </header>
      {file.isBinary || file.hunks.length === 0 ? (
        <p className="muted">{file.isBinary ? 'Binary file.' : 'No lines changed (mode or name only).'}</p>
      ) : (
        <div className="diff-scroll">
          <Diff
            viewType={viewType}
            diffType={file.type}
            hunks={file.hunks}
            tokens={tokens}
            widgets={widgets}
            selectedChanges={selection.map(getChangeKey)}
            gutterEvents={events}
            codeEvents={events}
          >
            {(hunks: HunkData[]) =>
              hunks.flatMap((hunk, index) => [collapsed(hunks, index), <Hunk key={hunk.content} hunk={hunk} />])
            }
          </Diff>
        </div>
      )}
    </section>
  );
});

/** The decoration before hunk `index`: how many unchanged lines git left out there. */
function collapsed(hunks: HunkData[], index: number): ReactElement {
  const hunk = hunks[index]!;
  const previous = hunks[index - 1];
  const hidden = previous ? hunk.oldStart - (previous.oldStart + previous.oldLines) : hunk.oldStart - 1;
  return (
    <Decoration key={`before-${hunk.content}`} className="diff-collapsed">
      <span className="muted">{hidden > 0 ? `⋯ ${hidden} unchanged line${hidden === 1 ? '' : 's'}` : ''}</span>
      <span className="muted mono">{hunk.content}</span>
    </Decoration>
  );
}
