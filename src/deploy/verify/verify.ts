// verify, pure: every check over a loaded tree plus what the I/O layer found out (the deployment,
// a fresh render, facts about this machine, smoke runs). Returns the checks; report.ts orders them.
import { formatProblem, type Problem } from '../deployment/problems.js';
import { droppedCredentialNotice } from '../render/dropped-credentials.js';
import type { RenderedInstall } from '../render/render.js';
import type { CodeCacheOutcome } from '../render/runtime-files.js';
import type { InstallTree } from '../tree.js';
import { type BrokerHostFacts, brokerConfigOf, checkBrokerHost, checkBrokerTree } from './checks/broker.js';
import { type CaFileFact, checkCaFiles } from './checks/ca-file.js';
import { type CredentialAccessFacts, checkCredentialAccess } from './checks/credential-access.js';
import { checkDrift } from './checks/drift.js';
import { checkFiles } from './checks/files.js';
import { checkHost, type HostFacts } from './checks/host.js';
import { checkLaunchPlans } from './checks/launch.js';
import { checkOpenclaw, type OpenclawHostFact } from './checks/openclaw.js';
import { checkProviders } from './checks/provider.js';
import { checkQwenSettings } from './checks/qwen-settings.js';
import { checkQwenTree, checkRipgrep, type QwenTreeFact, type RipgrepFact } from './checks/qwen-tree.js';
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
  deployment?: {
    problems?: readonly Problem[];
    renderError?: string;
    rendered?: RenderedInstall;
    /** How the fresh render's code cache came out on this machine (it explains that file's drift). */
    codeCache?: CodeCacheOutcome;
  };
  host?: HostFacts;
  /** The CA files of deployment.json `tls` that exist here as regular files, read; `now` judges expiry. */
  caFiles?: { facts: ReadonlyMap<string, CaFileFact>; now: string };
  /** On a POSIX machine of the tree's platform: the user database and each credential file's path chain. */
  credentialAccess?: CredentialAccessFacts;
  /** On the real install of a brokered deployment: the broker's user, credential files, listeners. */
  broker?: BrokerHostFacts;
  /** The Qwen package around the pinned qwenCli, walked on this (POSIX) machine. */
  qwenTree?: QwenTreeFact;
  /** The pinned qwenCli's real path on this machine, when it exists (every pin is judged by its target). */
  qwenCliReal?: string;
  /** Its vendored ripgrep for this host (path and mode; mode null when absent). */
  ripgrep?: RipgrepFact;
  /**
   * On the real install only (the tree sits at its plans' installDir on their platform): what the
   * launcher's host checks (src/host/install-checks.ts) report for every deployed profile.
   */
  installHost?: readonly string[];
  /**
   * On the real install: credential files an earlier render routed (its launch plans and broker.json
   * in backups/) that the tree no longer does, still on this machine.
   */
  staleCredentials?: readonly { file: string; names: string[] }[];
  smoke?: readonly SmokeResult[];
  /** The pinned Node and OpenClaw of the openclaw-recall profile, as found on this machine. */
  openclawHost?: OpenclawHostFact;
  /** Permission bits are meaningless on a Windows host. */
  checkModes: boolean;
}

export function verifyTree(inputs: VerifyInputs): Check[] {
  const checks = new Checks();
  const view = buildView(inputs.tree);
  checkFiles(view, checks, { checkModes: inputs.checkModes });
  if (inputs.tree.manifest !== undefined) {
    checkLaunchPlans(view, checks);
    // The pinned package's version where this machine has it (a staged tree: the default version's).
    const pinned = inputs.qwenTree;
    checkSettings(view, checks, pinned?.kind === 'walked' && pinned.qwenPackage ? pinned.version : undefined);
    checkProviders(view, checks);
    checkBrokerTree(view, checks);
    checkOpenclaw(view.openclaw, inputs.openclawHost, checks);
    // The real install: the launcher's own refusals are the violations, judged once for both.
    const real = inputs.installHost !== undefined;
    if (inputs.installHost !== undefined)
      checks.expect(
        'host.install',
        {},
        inputs.installHost,
        'the launcher would start every profile: install files, pins, owners and modes up to /, the Qwen package and its version',
      );
    if (inputs.host !== undefined)
      checkHost(view, inputs.host, checks, {
        real,
        ...(inputs.qwenTree === undefined ? {} : { qwen: inputs.qwenTree }),
        ...(inputs.qwenCliReal === undefined ? {} : { qwenCliReal: inputs.qwenCliReal }),
      });
    // With a credential broker no developer reads a credential file: broker.credentials judges them.
    if (inputs.credentialAccess !== undefined && brokerConfigOf(view) === undefined)
      checkCredentialAccess(view, inputs.credentialAccess, checks, {
        real,
        adminUid: inputs.tree.manifest.adminUid,
      });
    // Render deletes nothing outside the tree: a secret it stopped routing stays readable as before.
    if (inputs.staleCredentials !== undefined)
      checks.expect(
        'host.credentials.stale',
        {},
        inputs.staleCredentials.map(droppedCredentialNotice),
        'no credential file an earlier render routed is left on disk',
        'warning',
      );
    if (inputs.broker !== undefined)
      checkBrokerHost(view, inputs.broker, checks, inputs.tree.manifest.adminUid);
    if (inputs.caFiles !== undefined)
      checkCaFiles(inputs.caFiles.facts, new Date(inputs.caFiles.now), checks);
    if (inputs.qwenTree !== undefined) {
      checkQwenTree(inputs.qwenTree, inputs.tree.manifest.adminUid, checks, { real });
      checkQwenSettings(view, inputs.qwenTree, checks);
    }
    if (inputs.ripgrep !== undefined) checkRipgrep(inputs.ripgrep, checks);
  }
  const deployment = inputs.deployment;
  if (deployment !== undefined) {
    const problems = deployment.problems ?? [];
    checks.expect('deployment', {}, problems.map(formatProblem), 'deployment.json is valid');
    if (deployment.renderError !== undefined)
      checks.add('drift', {}, false, `cannot render deployment.json: ${deployment.renderError}`);
    if (deployment.rendered !== undefined)
      checkDrift(view, deployment.rendered, checks, deployment.codeCache);
  }
  for (const result of inputs.smoke ?? []) {
    checks.add('smoke', { file: `runtime/${result.runtime}` }, result.ok, result.message);
  }
  return checks.list;
}
