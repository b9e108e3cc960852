// The demo's sections, in order. Each prints its own heading and checks what it shows: a demo that
// printed a broken result and exited 0 would teach the wrong thing (and CI runs it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlanReport } from '../../src/cli/commands/plan.js';
import { DEFAULT_QWEN_VERSION, qwenVersionFacts } from '../../src/qwen/versions.js';
import type { CleanupState } from './cleanup.js';
import { DemoError, qwenManaged, ROOT } from './cli.js';
import { type RunningServer, startServer } from './context-server.js';
import { writeDeployment } from './deployment.js';
import { decodeHookOutput } from './envelope.js';
import {
  bashOnPath,
  HOOK_NAME,
  launcherEnvironment,
  qwenHookEnvironment,
  readAutoRecallHook,
  runHook,
} from './hook.js';
import { launchGuide } from './launch-guide.js';
import { block, clip, field, heading, write } from './output.js';
import { continuationEvent, newSession, submittedPromptEvent, TYPED_PROMPT } from './prompt.js';
import { watchQwenHome } from './qwen-home.js';
import type { Workspace } from './workspace.js';

const KNOWLEDGE = path.join(ROOT, 'examples/knowledge');
const PROFILE = 'auto-recall';
/** Fragments of the secrets in the typed prompt: none may reach the provider. */
const PROMPT_SECRETS = ['sk-live', 'Bearer', 'abc.def.ghi', 'API_KEY'];

function corpusSize(dir: string): number {
  const names = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
  return names.filter((name) => /\.(md|markdown|txt)$/.test(name)).length;
}

export async function serverStep(workspace: Workspace, token: string): Promise<RunningServer> {
  heading(1, 'Start the reference context server');
  const server = await startServer(KNOWLEDGE, token);
  field('Command', `qwen-managed ${server.args.join(' ').replace(KNOWLEDGE, 'examples/knowledge')}`);
  field('Corpus', `examples/knowledge (${corpusSize(KNOWLEDGE)} files, re-indexed when they change)`);
  field('Listening', server.url);
  field('Token', `random, in ${path.basename(workspace.tokenFile)} (0600), passed as CONTEXT_API_TOKEN`);
  return server;
}

export async function renderStep(workspace: Workspace, serverUrl: string): Promise<void> {
  heading(2, 'Render an auto-recall deployment');
  writeDeployment(workspace, serverUrl);
  field('Deployment', workspace.deploymentFile);
  field('Install dir', workspace.install);
  field('Node', process.execPath);
  field(
    'Qwen CLI',
    workspace.placeholderQwen
      ? `${workspace.qwenCli}\n(a placeholder: no Qwen in .cache/e2e yet, and the demo never starts Qwen)`
      : workspace.qwenCli,
  );
  field('Repository', workspace.repo);
  field('Provider', `generic-http-search-v1 at ${serverUrl}, timeout 1500 ms`);
  const rendered = await qwenManaged(['render', '--deployment', workspace.deploymentFile]);
  // The step lines; the closing hint to run verify is what the next section does.
  block(
    rendered.stdout
      .split('\n')
      .filter((line) => line.includes(' … '))
      .join('\n'),
  );
}

async function planJson(workspace: Workspace): Promise<PlanReport> {
  const plan = await qwenManaged(['plan', '--dir', workspace.install, '--profile', PROFILE, '--json']);
  return JSON.parse(plan.stdout) as PlanReport;
}

export async function hookStep(workspace: Workspace, state: CleanupState): Promise<void> {
  heading(3, 'Run the hook exactly as Qwen would');
  const settingsFile = path.join(workspace.install, 'profiles', PROFILE, 'system-settings.json');
  const hook = readAutoRecallHook(settingsFile);
  const report = await planJson(workspace);
  const qwenHome = report.environment.find((entry) => entry.name === 'QWEN_HOME');
  if (qwenHome !== undefined) state.qwenHome = watchQwenHome(qwenHome.value);
  const session = newSession(report.cwd);
  const env = qwenHookEnvironment(launcherEnvironment(report, process.env), report.cwd, session.sessionId);
  const server = state.server!;

  // The unit Qwen reads the hook's `timeout` in is a per-version fact (0.24.x: seconds).
  const unit = qwenVersionFacts(DEFAULT_QWEN_VERSION)!.hookTimeoutUnit === 'seconds' ? 's' : 'ms';
  field('Hook', `${HOOK_NAME} (UserPromptSubmit, timeout ${hook.timeout} ${unit})`);
  field('Command', hook.command);
  field(
    'Run as',
    `${bashOnPath(env['PATH'] ?? '')} -c <command>, cwd ${report.cwd},\n` +
      `${Object.keys(env).length} variables (the launcher plan's, token filled from its file, + Qwen's own)`,
  );
  field('Prompt typed', TYPED_PROMPT);

  const before = server.requests.length;
  const result = await runHook(hook, {
    cwd: report.cwd,
    env,
    stdin: submittedPromptEvent(session, TYPED_PROMPT),
  });
  if (result.code !== 0 || result.stderr !== '') {
    throw new DemoError(`the hook exited with ${result.code ?? result.signal}: ${result.stderr.trim()}`);
  }
  await server.waitForRequests(before + 1, 3000);
  const query = server.requests[before]?.query;
  if (query === undefined) throw new DemoError('serve-context logged the search without its query');
  const leaked = PROMPT_SECRETS.filter((secret) => query.includes(secret));
  if (leaked.length > 0) throw new DemoError(`the query carried prompt secrets: ${leaked.join(', ')}`);
  field('Query sent', `${JSON.stringify(query)}  (as serve-context received it; fence and secrets stripped)`);
  field(
    'Hook result',
    `exit 0 in ${result.ms} ms, stderr empty, ${Buffer.byteLength(result.stdout)} bytes on stdout`,
  );
  field('Hook stdout', clip(result.stdout, 96));

  const context = decodeHookOutput(result.stdout);
  if (context.items.length === 0) throw new DemoError('the hook injected no context');
  field(
    'Injected',
    `${context.items.length} items, ${context.additionalContext.length} characters, under the notice\n` +
      JSON.stringify(context.notice),
  );
  for (const item of context.items) {
    write(`    ${item.score.toFixed(2).padStart(6)}  ${item.uri}`);
    write(`            ${clip(item.title, 80)}`);
    write(`            ${clip(item.content, 80)}`);
  }
  write('  Qwen adds it to the same user message, after the typed text, inside');
  write('  <qwen:user-prompt-submit-context>: user-layer data, never the system prompt.');

  const continued = await runHook(hook, { cwd: report.cwd, env, stdin: continuationEvent(session) });
  // Nothing reaches the server: give a stray request time to show up in the log before counting.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const extra = server.requests.length - (before + 1);
  if (continued.code !== 0 || continued.stdout.trim() !== '{}' || extra !== 0) {
    throw new DemoError(`the continuation answered ${continued.stdout.trim()} with ${extra} request(s)`);
  }
  field(
    'Continuation',
    `tool-result turn, no submitted_prompt → stdout {} in ${continued.ms} ms, no request sent`,
  );
}

export async function verifyStep(workspace: Workspace): Promise<void> {
  heading(4, 'Verify the install');
  field('Command', `qwen-managed verify --dir ${workspace.install} --deployment ${workspace.deploymentFile}`);
  const verified = await qwenManaged([
    'verify',
    '--dir',
    workspace.install,
    '--deployment',
    workspace.deploymentFile,
  ]);
  block(verified.stdout);
}

export async function planStep(workspace: Workspace): Promise<void> {
  heading(5, 'What launch-qwen --profile auto-recall would run');
  field('Command', `qwen-managed plan --dir ${workspace.install} --profile ${PROFILE}`);
  const plan = await qwenManaged(['plan', '--dir', workspace.install, '--profile', PROFILE]);
  block(plan.stdout);
}

export function launchStep(workspace: Workspace): void {
  heading(6, 'Launch Qwen for real');
  block(launchGuide(workspace), '  ');
}
