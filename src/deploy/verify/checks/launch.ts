// launch.json of every profile: the schema, one install (same platform, installDir, node, Qwen,
// repository root everywhere), pinned paths, the pinned-file variables, the argument policy (via the
// launcher's own checker) and the environment policy.

import { CREDENTIAL_NAME } from '../../../config/names.js';
import type { LaunchPlan } from '../../../contracts/launch-plan.js';
import { launchPlanSchema } from '../../../contracts/launch-plan-schema.js';
import {
  EXTRA_CA_VARIABLE,
  installIdFor,
  PinnedLayout,
  PROFILE_FILES,
  pinnedFiles,
  profileRel,
  usesMcp,
} from '../../../contracts/layout.js';
import { qwenArgvProblems } from '../../../policy/arguments.js';
import { forbiddenReason, sameEnvName } from '../../../policy/environment-names.js';
import { ARGUMENT_POLICY, ENVIRONMENT_POLICY } from '../../../policy/policies.js';
import { pinnedPathListProblems, pinnedPathProblems } from '../../deployment/paths.js';
import { deepEqual, formatPath, showValue } from '../../json.js';
import { externalContextArgv } from '../../render/profile.js';
import type { Checks } from '../report.js';
import type { ProfileView, TreeView } from '../view.js';

function pathProblems(label: string, value: string, plan: LaunchPlan, notRoot = false): string[] {
  return pinnedPathProblems([label], value, plan.platform, { notRoot }).map(
    (p) => `${label} ${showValue(value)} ${p.message}`,
  );
}

function schemaProblems(profile: ProfileView): string[] {
  const parsed = profile.json(PROFILE_FILES.launchPlan);
  if (parsed === undefined) return ['is missing'];
  if (!parsed.ok) return [`is not valid JSON (${parsed.error})`];
  const result = launchPlanSchema.safeParse(parsed.value);
  if (!result.success) {
    return result.error.issues.map(
      (issue) => `${formatPath(issue.path)}: ${issue.message} (launch plan schema)`,
    );
  }
  return result.data.profile === profile.kind
    ? []
    : [`profile is ${showValue(result.data.profile)}, not ${profile.kind}`];
}

function environmentProblems(plan: LaunchPlan): string[] {
  const problems: string[] = [];
  const { platform } = plan;
  const named = (where: string, name: string) => {
    if (!CREDENTIAL_NAME.test(name))
      problems.push(`${where} ${showValue(name)} is not an environment variable name`);
    const why = forbiddenReason(name, ENVIRONMENT_POLICY, platform);
    if (why !== undefined) problems.push(`${where} ${name} is forbidden by the environment policy: ${why}`);
  };
  plan.environment.inherit.forEach((name, i) => {
    named('environment.inherit', name);
    if (plan.environment.inherit.findIndex((n) => sameEnvName(n, name, platform)) !== i)
      problems.push(`environment.inherit lists ${name} twice`);
  });
  for (const name of Object.keys(plan.environment.set)) {
    named('environment.set', name);
    if (plan.environment.inherit.some((n) => sameEnvName(n, name, platform)))
      problems.push(`environment.set ${name} is also inherited`);
  }
  for (const name of Object.keys(plan.credentials)) {
    named('credentials', name);
    const elsewhere = [...plan.environment.inherit, ...Object.keys(plan.environment.set)].some((n) =>
      sameEnvName(n, name, platform),
    );
    if (elsewhere)
      problems.push(`credentials ${name} is also inherited or set (it would survive a rollback)`);
  }
  for (const name of plan.externalContext.credentials) {
    // With a broker the session holds the public key in its place (broker.routing checks it).
    if (!Object.hasOwn(plan.credentials, name) && plan.broker?.keyVariables.includes(name) !== true)
      problems.push(`externalContext.credentials names ${name}, which "credentials" does not route`);
  }
  return problems;
}

function pinProblems(plan: LaunchPlan, kind: ProfileView['kind']): string[] {
  const layout = new PinnedLayout(plan.platform, plan.installDir);
  const problems = [
    ...pathProblems('installDir', plan.installDir, plan, true),
    ...pathProblems('node', plan.node, plan),
    ...pathProblems('qwenCli', plan.qwenCli, plan),
    ...pathProblems('cwd', plan.cwd, plan, true),
    ...pinnedPathListProblems(['environment', 'PATH'], plan.environment.PATH, plan.platform).map(
      (p) => `environment.PATH ${p.message}`,
    ),
  ];
  for (const [name, source] of Object.entries(plan.credentials)) {
    if ('file' in source) problems.push(...pathProblems(`credentials.${name}.file`, source.file, plan));
  }
  // The tree is trusted and the repository is not: whoever writes the repository could write the hooks.
  if (
    problems.length === 0 &&
    plan.cwd !== plan.installDir &&
    new PinnedLayout(plan.platform, plan.cwd).contains(plan.installDir)
  ) {
    problems.push(
      `installDir ${showValue(plan.installDir)} is inside the repository ${showValue(plan.cwd)} (cwd): whoever writes there could replace the hooks and the managed settings (render into a directory outside the repository that only root can write, and remove this tree)`,
    );
  }
  if (plan.installId !== installIdFor(plan.installDir)) {
    problems.push(
      `installId ${plan.installId} is not the first 16 hex digits of sha256(installDir) (${installIdFor(plan.installDir)})`,
    );
  }
  // The CA file is the one optional entry; whether the deployment asks for it is the drift check's to say.
  const extraCa = Object.hasOwn(plan.environment.files, EXTRA_CA_VARIABLE)
    ? plan.environment.files[EXTRA_CA_VARIABLE]
    : undefined;
  const expectedFiles = pinnedFiles(layout, kind, extraCa);
  if (!deepEqual(plan.environment.files, expectedFiles)) {
    problems.push(
      `environment.files must pin exactly ${showValue(pinnedFiles(layout, kind, undefined), 400)}, and optionally ${EXTRA_CA_VARIABLE} (found ${showValue(plan.environment.files, 400)})`,
    );
  }
  if (extraCa !== undefined) {
    const label = `environment.files.${EXTRA_CA_VARIABLE}`;
    const found = pathProblems(label, extraCa, plan);
    problems.push(...found);
    if (found.length === 0 && layout.contains(extraCa)) {
      problems.push(
        `${label} ${showValue(extraCa)} is inside installDir; the launcher pins only the tree's own files there (keep the CA file outside it and re-render)`,
      );
    }
  }
  const configFile = layout.profileFile(kind, PROFILE_FILES.providerConfig);
  if (plan.externalContext.configFile !== configFile) {
    problems.push(
      `externalContext.configFile must be ${showValue(configFile)} (found ${showValue(plan.externalContext.configFile)})`,
    );
  }
  const mcpArgv = externalContextArgv(kind, layout);
  if (!deepEqual(plan.externalContext.argv, mcpArgv)) {
    problems.push(
      usesMcp(kind)
        ? `externalContext.argv must be ${showValue(mcpArgv, 300)} (found ${showValue(plan.externalContext.argv, 300)})`
        : `externalContext.argv must be empty: the auto-recall profile has no MCP config (found ${showValue(plan.externalContext.argv, 300)})`,
    );
  }
  return problems;
}

function argvProblems(plan: LaunchPlan): string[] {
  const problems = qwenArgvProblems(
    [...plan.argv, ...plan.externalContext.argv],
    ARGUMENT_POLICY,
    plan.platform,
  ).map((p) => `argv: ${p}`);
  // The MCP config belongs to externalContext, which a rolled-back profile drops; in the base argv it would stay.
  if (
    plan.argv.some(
      (a) =>
        a === ARGUMENT_POLICY.managed.mcpConfigFlag ||
        a.startsWith(`${ARGUMENT_POLICY.managed.mcpConfigFlag}=`),
    )
  ) {
    problems.push(
      `argv: ${ARGUMENT_POLICY.managed.mcpConfigFlag} belongs in externalContext.argv, not in the base argv`,
    );
  }
  return problems;
}

export function checkLaunchPlans(view: TreeView, checks: Checks): void {
  for (const profile of view.profiles) {
    const file = profileRel(profile.kind, PROFILE_FILES.launchPlan);
    const scope = { profile: profile.kind, file };
    checks.expect('launch.schema', scope, schemaProblems(profile), 'matches the launch plan schema');
    const plan = profile.plan;
    if (plan === undefined) continue;
    checks.expect(
      'launch.paths',
      scope,
      pinProblems(plan, profile.kind),
      'pinned paths are absolute, normal and free of `$`',
    );
    checks.expect('policy.arguments', scope, argvProblems(plan), 'the Qwen argv obeys the argument policy');
    checks.expect(
      'policy.environment',
      scope,
      environmentProblems(plan),
      'the environment obeys the environment policy',
    );
  }
  const plans = view.profiles.flatMap((p) => (p.plan === undefined ? [] : [p.plan]));
  const problems: string[] = [];
  for (const key of ['platform', 'installDir', 'node', 'qwenCli', 'cwd'] as const) {
    const values = [...new Set(plans.map((p) => p[key]))];
    if (values.length > 1)
      problems.push(`profiles disagree on ${key}: ${values.map((v) => showValue(v)).join(', ')}`);
  }
  // deployment.json has one `tls` block: every profile trusts the same CA file, or none does.
  const extraCas = [...new Set(plans.map((p) => p.environment.files[EXTRA_CA_VARIABLE]))];
  if (extraCas.length > 1) {
    problems.push(
      `profiles disagree on environment.files.${EXTRA_CA_VARIABLE}: ${extraCas.map((v) => (v === undefined ? 'absent' : showValue(v))).join(', ')}`,
    );
  }
  checks.expect(
    'launch.consistency',
    {},
    problems,
    'every profile pins the same install, node, Qwen, repository and CA file',
  );
  if (plans.some((p) => p.platform === 'windows')) {
    // Hooks run through PowerShell on Windows: what PATH resolves and which profiles load is the machine's.
    checks.add(
      'launch.windows',
      {},
      false,
      'cannot be proven here: the pinned PATH must resolve powershell (and pwsh, which wins) to administrator-controlled executables, and user PowerShell profiles must be absent or administrator-controlled',
      'warning',
    );
  }
}
