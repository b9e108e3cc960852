// Two judgements of the pinned Qwen that render, verify and the launcher make alike, each by the pin's
// resolved target: a `qwenCli` that is (or links to) Qwen's self-updating wrapper, and a pinned node
// older than the Node versions the Qwen package declares (`engines.node`). One line each, with the fix.
import { satisfiesEngines } from './node-engines.js';

/** The entry npm links as `bin/qwen`: it re-spawns Qwen and can apply a self-update first. */
export const QWEN_WRAPPER = 'cli-entry.js';

function basename(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}

function dirname(file: string): string {
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return cut <= 0 ? file.slice(0, 1) : file.slice(0, cut);
}

/** `qwenCli` (as pinned) or its real path (`resolved`, when known) names cli-entry.js. */
export function qwenWrapperProblem(
  qwenCli: string,
  resolved: string | undefined,
  show: (value: string) => string,
): string | undefined {
  const target = resolved ?? qwenCli;
  if (basename(qwenCli) !== QWEN_WRAPPER && basename(target) !== QWEN_WRAPPER) return undefined;
  const via = target === qwenCli ? '' : ` (it resolves to ${show(target)})`;
  const sep = target.includes('\\') && !target.includes('/') ? '\\' : '/';
  return `Qwen cli ${show(qwenCli)}${via} is ${QWEN_WRAPPER}, Qwen's self-updating wrapper (npm's bin/qwen links to it): it relaunches Qwen and can apply an update first; fix: pin ${show(`${dirname(target)}${sep}cli.js`)}`;
}

/** The pinned node's `version` does not satisfy the Qwen package's `engines.node` (undefined: it does, or either is unknown). */
export function nodeEnginesProblem(
  node: string,
  version: string | undefined,
  qwen: { root: string; version?: string | undefined; enginesNode?: string | undefined },
  show: (value: string) => string,
): string | undefined {
  if (version === undefined || qwen.enginesNode === undefined) return undefined;
  if (satisfiesEngines(version, qwen.enginesNode) !== false) return undefined;
  return `node ${show(node)} is ${version}, but Qwen ${qwen.version ?? ''} at ${show(qwen.root)} declares engines.node ${show(qwen.enginesNode)}: it cannot start on it; fix: pin a Node that satisfies ${show(qwen.enginesNode)} (docs/admin.md, "Installing Qwen for a deployment")`.replace(
    'Qwen  at',
    'Qwen at',
  );
}
