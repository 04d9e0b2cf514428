// Review comments (web/src/review/review-comments.ts): what a selection of diff lines points at, and the one
// message a set of comments becomes.
import { describe, expect, it } from 'vitest';
import { commentOn, lineOf, reviewMessage } from '../../web/src/review/review-comments.js';

describe('review comments', () => {
  it('points at a run of lines of one side, in order, quoting them', () => {
    const lines = [
      lineOf({ type: 'normal', content: 'b', isNormal: true, oldLineNumber: 4, newLineNumber: 5 }),
      lineOf({ type: 'insert', content: 'a', isInsert: true, lineNumber: 3 }),
      lineOf({ type: 'delete', content: 'gone', isDelete: true, lineNumber: 7 }),
      lineOf({ type: 'insert', content: 'c', isInsert: true, lineNumber: 6 }),
    ];
    expect(commentOn('1', 'src/a.ts', lines, '  Rename this.  ')).toEqual({
      id: '1',
      path: 'src/a.ts',
      side: 'new',
      startLine: 3,
      endLine: 6,
      quoted: ['a', 'b', 'c'],
      text: 'Rename this.',
    });
    expect(commentOn('2', 'src/a.ts', [lines[2]!], 'Why remove it?')).toMatchObject({
      side: 'old',
      startLine: 7,
      endLine: 7,
      quoted: ['gone'],
    });
    expect(commentOn('3', 'src/a.ts', lines, '   ')).toBeNull();
    expect(commentOn('4', 'src/a.ts', [], 'text')).toBeNull();
  });

  it('becomes one plain message: each file and line range, the quoted lines, the comment', () => {
    const first = commentOn(
      '1',
      'src/a.ts',
      [
        lineOf({ type: 'insert', content: 'x = 1', isInsert: true, lineNumber: 3 }),
        lineOf({ type: 'insert', content: 'y = 2', isInsert: true, lineNumber: 4 }),
      ],
      'Two lines:\nboth wrong',
    )!;
    const second = commentOn(
      '2',
      'README.md',
      [lineOf({ type: 'delete', content: 'old intro', isDelete: true, lineNumber: 1 })],
      'Keep this.',
    )!;
    expect(reviewMessage('app/w1', [first, second])).toBe(
      [
        'Review of app/w1 (2 comments). Please address each:',
        '',
        '1. src/a.ts, lines 3-4:',
        '   > x = 1',
        '   > y = 2',
        '   Two lines:',
        '   both wrong',
        '',
        '2. README.md, line 1 (removed):',
        '   > old intro',
        '   Keep this.',
      ].join('\n'),
    );
  });
});
