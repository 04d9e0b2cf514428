// Review comments for an agent (issue #28), pure: where a comment points (a file and a run of lines of one
// side of the diff, with the lines it quotes), and the one plain-text message all of them become. The format
// is what a person would paste into a chat with the agent: a heading, then each comment numbered with its
// file and line range, the quoted lines prefixed by `> `, and the comment text. Shown to the user before it
// is sent; nothing in it is markup.
import type { ChangeData } from 'react-diff-view';

export interface LineRef {
  /** `new`: a line of the changed file (added or unchanged); `old`: a removed line, numbered as it was. */
  side: 'old' | 'new';
  line: number;
  content: string;
}

export interface ReviewComment {
  id: string;
  path: string;
  side: 'old' | 'new';
  startLine: number;
  endLine: number;
  /** The lines the comment is about, as the diff shows them (without the +/- mark). */
  quoted: string[];
  text: string;
}

export function lineOf(change: ChangeData): LineRef {
  if (change.type === 'insert') return { side: 'new', line: change.lineNumber, content: change.content };
  if (change.type === 'delete') return { side: 'old', line: change.lineNumber, content: change.content };
  return { side: 'new', line: change.newLineNumber, content: change.content };
}

/** A comment on the selected lines (one side, in order); null when there is nothing to point at. */
export function commentOn(id: string, path: string, lines: readonly LineRef[], text: string): ReviewComment | null {
  if (lines.length === 0 || text.trim() === '') return null;
  const side = lines[lines.length - 1]!.side;
  const same = lines.filter((line) => line.side === side).sort((a, b) => a.line - b.line);
  return {
    id,
    path,
    side,
    startLine: same[0]!.line,
    endLine: same[same.length - 1]!.line,
    quoted: same.map((line) => line.content),
    text: text.trim(),
  };
}

export function rangeLabel(comment: Pick<ReviewComment, 'startLine' | 'endLine' | 'side'>): string {
  const lines =
    comment.startLine === comment.endLine
      ? `line ${comment.startLine}`
      : `lines ${comment.startLine}-${comment.endLine}`;
  return comment.side === 'old' ? `${lines} (removed)` : lines;
}

/** The one message the comments are sent as. */
export function reviewMessage(workspace: string, comments: readonly ReviewComment[]): string {
  const count = `${comments.length} comment${comments.length === 1 ? '' : 's'}`;
  const parts = comments.map((comment, index) => {
    const quoted = comment.quoted.map((line) => `   > ${line}`).join('\n');
    const text = comment.text
      .split('\n')
      .map((line) => `   ${line}`)
      .join('\n');
    return `${index + 1}. ${comment.path}, ${rangeLabel(comment)}:\n${quoted}\n${text}`;
  });
  return `Review of ${workspace} (${count}). Please address each:\n\n${parts.join('\n\n')}`;
}
