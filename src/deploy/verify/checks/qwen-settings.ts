// Every profile's managed settings against the Qwen actually pinned on this machine: render judges
// deployment.json's settings by the default version's table unless it runs where the package is, and
// Qwen silently ignores a key its own version lacks, so that part of the session would be unmanaged.
import { PROFILE_FILES, profileRel } from '../../../contracts/layout.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../../qwen/versions.js';
import { isPlainObject } from '../../../text/json.js';
import { formatProblem } from '../../deployment/problems.js';
import { settingsFactsProblems } from '../../deployment/settings.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';
import type { QwenTreeFact } from './qwen-tree.js';

export function checkQwenSettings(view: TreeView, fact: QwenTreeFact, checks: Checks): void {
  // An unknown or unsupported version is host.qwen's and host.install's to refuse.
  if (fact.kind !== 'walked' || !fact.qwenPackage || fact.version === undefined) return;
  const { version } = fact;
  if (!SUPPORTED_QWEN_VERSIONS.includes(version)) return;
  for (const profile of view.profiles) {
    const parsed = profile.json(PROFILE_FILES.systemSettings);
    // A missing or malformed file is the layout and settings.json checks' to report.
    if (parsed?.ok !== true || !isPlainObject(parsed.value)) continue;
    // Every key, by this version's own table (render judged them by the default version's).
    const problems = settingsFactsProblems(parsed.value, version);
    checks.expect(
      'settings.qwen',
      { profile: profile.kind, file: profileRel(profile.kind, PROFILE_FILES.systemSettings) },
      problems.map(
        (p) =>
          `${formatProblem(p)} (the pinned Qwen here is ${version}, which ignores settings it does not know; change deployment.json or pin a Qwen that has it)`,
      ),
      `every setting is one the Qwen ${version} pinned here knows`,
    );
  }
}
