// The branch name an issue-linked create asks the forge for (spec "POST /workspaces (bridge)", docs/architecture.md §9):
// `<number>-<slug of title>` capped at 60 characters. Here, not in the bridge, because the GUI previews the
// name before the create (issue #31) and the preview must be the bridge's own rule, not a copy of it. The
// forge steps (create and link, or find) stay in bridge/ephemeral/issue-branch.ts.

export const ISSUE_BRANCH_MAX_LENGTH = 60;

/** Lowercase ASCII letters and digits; every run of anything else one `-`; trimmed of `-`. */
export function slugOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `<number>-<slug>`, cut to 60 characters with no trailing `-`; a title that slugs to nothing gives `<number>`. */
export function issueBranchName(issueNumber: number, title: string): string {
  const slug = slugOf(title);
  const full = slug === '' ? String(issueNumber) : `${issueNumber}-${slug}`;
  return full.slice(0, ISSUE_BRANCH_MAX_LENGTH).replace(/-+$/, '');
}
