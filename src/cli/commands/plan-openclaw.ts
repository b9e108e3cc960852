// `qwen-managed plan --profile openclaw-recall`: what the profile's launch plan pins — the Node 24,
// openclaw.mjs, the managed argv, the working directory, the pinned config file and where each
// variable comes from (credential values never shown). launch-qwen does not start OpenClaw yet
// (docs/openclaw.md, "The managed session"): the report says so.
import * as path from 'node:path';
import { OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import { OPENCLAW_PROFILE_FILES } from '../../contracts/layout.js';
import { type OpenclawLaunchPlan, openclawLaunchPlanSchema } from '../../contracts/openclaw-launch.js';
import { lookupEnv } from '../../policy/environment-names.js';
import { ENVIRONMENT_POLICY } from '../../policy/policies.js';
import { posixQuote } from '../../policy/quote.js';
import { InputError } from '../command-errors.js';

export interface OpenclawPlanEntry {
  name: string;
  value: string;
  source: 'plan-path' | 'inherited' | 'admin-set' | 'credential' | 'pinned-file';
  redacted?: true;
  from?: string;
}

export interface OpenclawPlanReport {
  profile: typeof OPENCLAW_PROFILE;
  state: 'active' | 'rolled-back';
  executable: string;
  argv: string[];
  cwd: string;
  environment: OpenclawPlanEntry[];
  /** Names the plan inherits that the environment policy keeps out. */
  dropped: string[];
  note: string;
}

export const OPENCLAW_PLAN_NOTE =
  'launch-qwen does not start OpenClaw yet: this is the rendered plan (docs/openclaw.md, "The managed session")';

export function openclawPlanReport(
  dir: string,
  state: 'active' | 'rolled-back',
  callerEnv: Readonly<Record<string, string | undefined>>,
  readFile: (file: string) => string,
): OpenclawPlanReport {
  const file = path.join(dir, 'profiles', OPENCLAW_PROFILE, OPENCLAW_PROFILE_FILES.launchPlan);
  let plan: OpenclawLaunchPlan;
  try {
    plan = openclawLaunchPlanSchema.parse(JSON.parse(readFile(file)));
  } catch {
    throw new InputError(`plan: ${file} is missing or does not match its schema; re-render`);
  }
  const forbidden = (name: string) =>
    ENVIRONMENT_POLICY.forbidden.names.includes(name) ||
    ENVIRONMENT_POLICY.forbidden.prefixes.some((prefix) => name.startsWith(prefix));
  const environment: OpenclawPlanEntry[] = [
    { name: 'PATH', value: plan.environment.PATH, source: 'plan-path' },
  ];
  const dropped: string[] = [];
  for (const name of plan.environment.inherit) {
    if (forbidden(name)) {
      dropped.push(name);
      continue;
    }
    const value = lookupEnv(callerEnv, name, plan.platform);
    if (value !== undefined) environment.push({ name, value, source: 'inherited' });
  }
  for (const [name, value] of Object.entries(plan.environment.set))
    environment.push({ name, value, source: 'admin-set' });
  for (const [name, source] of Object.entries(plan.credentials)) {
    environment.push({
      name,
      value: '<redacted>',
      source: 'credential',
      redacted: true,
      from: 'file' in source ? `file ${source.file}` : 'the caller (inherit)',
    });
  }
  for (const [name, value] of Object.entries(plan.environment.files))
    environment.push({ name, value, source: 'pinned-file' });
  return {
    profile: OPENCLAW_PROFILE,
    state,
    executable: plan.node,
    argv: [plan.node, plan.cli, ...plan.argv],
    cwd: plan.cwd,
    environment,
    dropped,
    note: OPENCLAW_PLAN_NOTE,
  };
}

export function formatOpenclawPlan(report: OpenclawPlanReport): string {
  const lines = [
    `Profile:     ${report.profile} (${report.state === 'active' ? 'active' : 'rolled back: OpenClaw loads no plugin'})`,
    `Executable:  ${report.executable}`,
    `Argv:        ${report.argv.map(posixQuote).join(' ')}`,
    `Cwd:         ${report.cwd}`,
    `Environment (${report.environment.length} variables):`,
    ...report.environment.map(
      (e) => `  ${e.name}=${e.value}    ${e.source}${e.from === undefined ? '' : ` from ${e.from}`}`,
    ),
  ];
  if (report.dropped.length > 0)
    lines.push(`Dropped by the environment policy: ${report.dropped.join(', ')}`);
  lines.push('', report.note);
  return `${lines.join('\n')}\n`;
}
