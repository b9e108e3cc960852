// A worktree checkout, which Qwen 0.24.4 runs with no dialog.

/**
 * Qwen 0.24.4's enter_worktree runs `git worktree add -b … <repo>/.qwen/worktrees/<name>` with no
 * dialog in any mode (its default permission is allow): measured through the launcher, the
 * repository's `post-checkout` and `reference-transaction` hooks ran, which the launcher lets pass.
 */
export const WORKTREE_TOOL = 'enter_worktree';

export const WORKTREE_REASON =
  "enter_worktree runs git worktree add, which checks out files and runs the repository's " +
  'post-checkout and reference-transaction hooks (the launcher does not refuse those).';
