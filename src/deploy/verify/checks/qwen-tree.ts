// Qwen's own files on this machine: the whole package around the pinned cli.js, judged with the rule
// the launcher applies before every start (src/host/qwen-package.ts), so the two never disagree.
import {
  QWEN_PACKAGE_NAME,
  QWEN_TREE_MAX_ENTRIES,
  type QwenPackageFact,
  qwenPackageProblems,
  qwenPackageSummary,
} from '../../../host/qwen-package.js';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';

export { QWEN_PACKAGE_NAME, QWEN_TREE_MAX_ENTRIES };
export type QwenTreeFact = QwenPackageFact;

export function checkQwenTree(fact: QwenTreeFact, adminUid: number, checks: Checks): void {
  // Absent: the host.pins check already reports the missing qwenCli.
  if (fact.kind === 'absent') return;
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
  checks.expect(
    'host.qwen',
    {},
    qwenPackageProblems(fact, adminUid, showValue),
    qwenPackageSummary(fact, adminUid, showValue),
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
