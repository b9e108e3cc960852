// Qwen's own files on this machine. The launcher pins cli.js by path, checksum and StrictModes, but
// cli.js loads over a thousand sibling files (chunks, workers, bundled modules): whoever can write
// any of them changes what Qwen runs, hooks included. Too many to check at every launch, so verify
// checks them, with the launcher's rule: owned by root or the administrator, not group/other-writable.
import { posixQuote } from '../../../policy/quote.js';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';

/** The Qwen package Qwen's `qwenCli` must sit in for its sibling files to be known. */
export const QWEN_PACKAGE_NAME = '@qwen-code/qwen-code';
/** The walk stops here: an npm install of Qwen 0.24.4 has about 1300 entries. */
export const QWEN_TREE_MAX_ENTRIES = 100_000;

/** What the I/O layer found under the directory of the pinned `qwenCli`. */
export type QwenTreeFact =
  | { kind: 'not-a-package'; root: string }
  | {
      kind: 'walked';
      root: string;
      entries: number;
      truncated: boolean;
      /** Entries writable by group or others: how many, and the first one met. */
      writable: { count: number; first?: { path: string; mode: number } };
      /** Every owning uid: how many entries it owns, and the first one met. */
      owners: ReadonlyMap<number, { count: number; first: string }>;
    };

const entries = (n: number) => (n === 1 ? '1 entry' : `${n} entries`);

export function checkQwenTree(fact: QwenTreeFact, adminUid: number, checks: Checks): void {
  const root = showValue(fact.root);
  if (fact.kind === 'not-a-package') {
    checks.add(
      'host.qwen',
      {},
      false,
      `qwenCli's directory ${root} is not the ${QWEN_PACKAGE_NAME} package, so the files Qwen loads besides cli.js were not checked; pin <prefix>/node_modules/${QWEN_PACKAGE_NAME}/cli.js`,
      'warning',
    );
    return;
  }
  const problems: string[] = [];
  if (fact.writable.first !== undefined) {
    const { path, mode } = fact.writable.first;
    problems.push(
      `Qwen's install ${root} has ${entries(fact.writable.count)} writable by group or others, e.g. ${showValue(path)} (mode ${mode.toString(8)}); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w ${posixQuote(fact.root)}`,
    );
  }
  const trusted = adminUid === 0 ? 'root' : `root or the administrator (uid ${adminUid})`;
  for (const [uid, owned] of [...fact.owners].sort(([a], [b]) => a - b)) {
    // Root and the administrator who rendered the install are the only owners trusted (StrictModes).
    if (uid === 0 || uid === adminUid) continue;
    problems.push(
      `Qwen's install ${root} has ${entries(owned.count)} owned by uid ${uid}, not ${trusted}, e.g. ${showValue(owned.first)}; fix: chown -R root ${posixQuote(fact.root)}`,
    );
  }
  checks.expect(
    'host.qwen',
    {},
    problems,
    `Qwen's install ${root}: ${entries(fact.entries)}, all owned by ${trusted} and not writable by group or others`,
  );
  if (fact.truncated) {
    checks.add(
      'host.qwen',
      {},
      false,
      `Qwen's install ${root} has more than ${QWEN_TREE_MAX_ENTRIES} entries; only the first ${QWEN_TREE_MAX_ENTRIES} were checked`,
      'warning',
    );
  }
}
