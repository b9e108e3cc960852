// verify, pure: every check over a loaded tree plus what the I/O layer found out (the deployment,
// a fresh render, facts about this machine, smoke runs). Returns the checks; report.ts orders them.
import { formatProblem, type Problem } from '../deployment/problems.js';
import type { RenderedInstall } from '../render/render.js';
import type { InstallTree } from '../tree.js';
import { type CaFileFact, checkCaFiles } from './checks/ca-file.js';
import { checkDrift } from './checks/drift.js';
import { checkFiles } from './checks/files.js';
import { checkHost, type HostFacts } from './checks/host.js';
import { checkLaunchPlans } from './checks/launch.js';
import { checkProviders } from './checks/provider.js';
import { checkQwenTree, type QwenTreeFact } from './checks/qwen-tree.js';
import { checkSettings } from './checks/settings.js';
import { type Check, Checks } from './report.js';
import { buildView } from './view.js';

export interface SmokeResult {
  runtime: string;
  ok: boolean;
  message: string;
}

export interface VerifyInputs {
  tree: InstallTree;
  /** With --deployment: its problems (refusals), or a fresh render to compare with. */
  deployment?: { problems?: readonly Problem[]; renderError?: string; rendered?: RenderedInstall };
  host?: HostFacts;
  /** The CA files of deployment.json `tls` that exist here as regular files, read; `now` judges expiry. */
  caFiles?: { facts: ReadonlyMap<string, CaFileFact>; now: string };
  /** The Qwen package around the pinned qwenCli, walked on this (POSIX) machine. */
  qwenTree?: QwenTreeFact;
  smoke?: readonly SmokeResult[];
  /** Permission bits are meaningless on a Windows host. */
  checkModes: boolean;
}

export function verifyTree(inputs: VerifyInputs): Check[] {
  const checks = new Checks();
  const view = buildView(inputs.tree);
  checkFiles(view, checks, { checkModes: inputs.checkModes });
  if (inputs.tree.manifest !== undefined) {
    checkLaunchPlans(view, checks);
    checkSettings(view, checks);
    checkProviders(view, checks);
    if (inputs.host !== undefined) checkHost(view, inputs.host, checks);
    if (inputs.caFiles !== undefined)
      checkCaFiles(inputs.caFiles.facts, new Date(inputs.caFiles.now), checks);
    if (inputs.qwenTree !== undefined) checkQwenTree(inputs.qwenTree, inputs.tree.manifest.adminUid, checks);
  }
  const deployment = inputs.deployment;
  if (deployment !== undefined) {
    const problems = deployment.problems ?? [];
    checks.expect('deployment', {}, problems.map(formatProblem), 'deployment.json is valid');
    if (deployment.renderError !== undefined)
      checks.add('drift', {}, false, `cannot render deployment.json: ${deployment.renderError}`);
    if (deployment.rendered !== undefined) checkDrift(view, deployment.rendered, checks);
  }
  for (const result of inputs.smoke ?? []) {
    checks.add('smoke', { file: `runtime/${result.runtime}` }, result.ok, result.message);
  }
  return checks.list;
}
