// Qwen's own files on this machine: the whole package around the pinned cli.js, judged with the rule
// the launcher applies before every start (src/host/qwen-package.ts), so the two never disagree.

import { qwenVersionProblem } from '../../../host/install-checks.js';
import {
  QWEN_PACKAGE_NAME,
  QWEN_TREE_MAX_ENTRIES,
  type QwenPackageFact,
  qwenPackageProblems,
  qwenPackageSummary,
} from '../../../host/qwen-package.js';
import { posixQuote } from '../../../policy/quote.js';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';

export type QwenTreeFact = QwenPackageFact;

/** The vendored ripgrep Qwen runs (`mode` null: absent), from policies/qwen/versions.json `ripgrep`. */
export interface RipgrepFact {
  path: string;
  mode: number | null;
}

/**
 * A real install walks the package in host.install (the launcher's check); here only what the
 * launcher does not refuse is added. A staged tree is judged here alone.
 */
export function checkQwenTree(
  fact: QwenTreeFact,
  adminUid: number,
  checks: Checks,
  options: { real: boolean } = { real: false },
): void {
  // Absent: the host.pins check already reports the missing qwenCli.
  if (fact.kind === 'absent') return;
  const root = showValue(fact.root);
  // On the real install the launcher's check walked whatever sits beside cli.js.
  if (fact.kind === 'not-a-package' && options.real) return;
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
  if (!options.real) {
    const version = qwenVersionProblem(fact, showValue);
    checks.expect(
      'host.qwen',
      {},
      [...qwenPackageProblems(fact, adminUid, showValue), ...(version === undefined ? [] : [version])],
      `${qwenPackageSummary(fact, adminUid, showValue)}${fact.version === undefined ? '' : `; Qwen ${fact.version} is supported`}`,
    );
  }
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

/** Qwen 0.24.4 from the registry ships rg without its execute bit: every start falls back to a slower grep. */
export function checkRipgrep(fact: RipgrepFact, checks: Checks): void {
  if (fact.mode === null) return;
  if ((fact.mode & 0o111) === 0o111) {
    checks.add('host.ripgrep', {}, true, `Qwen's vendored ripgrep ${showValue(fact.path)} is executable`);
    return;
  }
  checks.add(
    'host.ripgrep',
    {},
    false,
    `Qwen's vendored ripgrep ${showValue(fact.path)} is not executable by everyone (mode ${fact.mode.toString(8)}), so every Qwen start prints "Ripgrep not available" and searches with its slower built-in grep (a packaging defect of Qwen 0.24.4 from the registry); fix: chmod a+x ${posixQuote(fact.path)}`,
    'warning',
  );
}
