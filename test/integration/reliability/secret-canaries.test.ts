// Secret canaries, end to end: the administrator's flows (render, verify, plan, re-render, rollback
// of an install and of an upstream-style settings file, scripts/rollback) through the BUILT CLI, and
// Qwen's side (each bundled runtime started from the install the way Qwen starts it, the launcher),
// all with distinctive fake credentials in every environment and in the credential files. The final
// checks scan everything the programs printed and every file they wrote: no credential anywhere;
// the prompt marker only in the provider's search request; memory text only in the write request
// and in the confirmation shown to the user.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import { ASK_QUESTION } from '../../../src/runtimes/write-confirmation/decide.js';
import {
  type CanaryName,
  CONTENT_CANARY,
  CREDENTIAL_NAMES,
  CREDENTIALS,
  canariesIn,
  type Finding,
  PROMPT_CANARY,
  scanFiles,
  scanTexts,
} from '../../fixtures/canaries.js';
import {
  type FakeService,
  PLATFORM_ADD_ROUTE,
  PLATFORM_SEARCH_ROUTE,
  startGenericSearch,
  startMem0Platform,
} from '../../fixtures/fake-services/index.js';
import { connectMcp } from '../../fixtures/mcp-client.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';
import { ROOT } from '../../fixtures/run-runtime.js';
import { mem0PlatformProvider } from '../../fixtures/runtime-config.js';
import { type ProgramRun, runCli, runProgram } from './cli.js';

const EVERYTHING: CanaryName[] = [...CREDENTIAL_NAMES, 'PROMPT', 'CONTENT'];
const PROFILES = ['on-demand', 'auto-recall', 'write'] as const;
const APP_ID = 'repository-memory';

const SUBJECTS = {
  cli: 'admin CLI output: render ×2, verify (text and --json), plan (text and --json) per profile, rollback (install, --dry-run, settings file), scripts/rollback',
  files:
    'every file written: the install tree with backups/, verify reports, plan outputs, the upstream settings file, its config and their backups, HOME and TMPDIR of every program',
  runtimes:
    'runtime output: auto-recall hook, approval guard, MCP results and stderr (search and remember), launcher refusals',
  confirmation: 'write-confirmation hook output',
  requests: 'provider requests (Generic HTTP search, Mem0 search and add)',
  inherited:
    'plan of examples/deployments/auto-recall.json, whose model key is inherited through environment.inherit, with the key in the caller environment',
};
const NOTHING = 'no credential, no prompt marker, no memory text';
const EXPECTED = {
  cli: NOTHING,
  files: NOTHING,
  runtimes: NOTHING,
  confirmation: 'memory text only in the confirmation line; no credential, no prompt marker',
  requests:
    'each credential only in its one credential header; prompt marker only in search queries (sanitized); memory text only in the write body',
  inherited: 'no credential value printed',
};
const section = new KeyedSection(
  'canaries',
  `Every program runs with the fake credentials ${CREDENTIAL_NAMES.map((n) => `\`${n}\``).join(', ')} in its ` +
    'environment (the credential files hold them too), prompts carry a prompt marker and memories a memory ' +
    'marker. After the flows, everything printed and every file written is scanned (UTF-8 and Latin-1).',
  SUBJECTS,
  EXPECTED,
);

let tmp: string;
let install: string;
let generic: FakeService;
let platform: FakeService;
let proxy: LoopbackProxy;
const outputs = new Map<string, string>();
/** What the write-confirmation hook printed: the only output allowed to show memory text. */
const confirmations = new Map<string, string>();
let secrets: string;

const dirs = () => ({
  home: path.join(tmp, 'home'),
  tmpdir: path.join(tmp, 'tmpdir'),
  reports: path.join(tmp, 'reports'),
  plans: path.join(tmp, 'plans'),
  upstream: path.join(tmp, 'upstream'),
  repo: path.join(tmp, 'repo'),
});

/** The worst case: every canary credential is set in every program's environment. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: dirs().home,
    TMPDIR: dirs().tmpdir,
    LANG: 'C.UTF-8',
    TERM: 'xterm',
    ...CREDENTIALS,
    ...extra,
  };
}

function keep(label: string, run: ProgramRun): ProgramRun {
  outputs.set(`${label} (stdout)`, run.stdout);
  outputs.set(`${label} (stderr)`, run.stderr);
  return run;
}

const cli = async (label: string, args: string[], extra: Record<string, string> = {}) =>
  keep(label, await runCli(args, { cwd: tmp, env: env(extra) }));

function deployment(model: string): Record<string, unknown> {
  return {
    version: 1,
    platform: 'posix',
    installDir: install,
    node: process.execPath,
    qwenCli: path.join(tmp, 'qwen', 'cli.js'),
    repositoryRoot: dirs().repo,
    environment: { PATH: '/usr/local/bin:/usr/bin:/bin', inherit: ['TERM', 'LANG'] },
    credentials: {
      CONTEXT_API_TOKEN: { file: path.join(secrets, 'context.token') },
      MEM0_API_KEY: { file: path.join(secrets, 'mem0.key') },
      OPENAI_API_KEY: { inherit: true, profiles: [...PROFILES] },
    },
    settings: { model: { name: model } },
    profiles: {
      'on-demand': {
        provider: { type: 'generic-http-search-v1', baseUrl: generic.url, tokenEnv: 'CONTEXT_API_TOKEN' },
        timeoutMs: 3000,
      },
      'auto-recall': {
        provider: { type: 'generic-http-search-v1', baseUrl: generic.url, tokenEnv: 'CONTEXT_API_TOKEN' },
        timeoutMs: 1500,
      },
      write: {
        provider: mem0PlatformProvider(platform.url, APP_ID),
        timeoutMs: 3000,
      },
    },
  };
}

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-canaries-')));
  install = path.join(tmp, 'install');
  secrets = path.join(tmp, 'secrets');
  for (const d of [...Object.values(dirs()), secrets, path.join(tmp, 'qwen')])
    fs.mkdirSync(d, { mode: 0o755 });
  // Credential files as an administrator writes them: trailing newline, owner-only.
  fs.writeFileSync(path.join(secrets, 'context.token'), `${CREDENTIALS.CONTEXT_API_TOKEN}\n`, {
    mode: 0o600,
  });
  fs.writeFileSync(path.join(secrets, 'mem0.key'), `${CREDENTIALS.MEM0_API_KEY}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(tmp, 'qwen', 'cli.js'), '// stand-in for Qwen: never started by this suite\n');
  generic = await startGenericSearch({
    token: CREDENTIALS.CONTEXT_API_TOKEN,
    documents: [
      { id: 'kb-1', content: 'Deployment policy: two approvals, then the release train.', title: 'Policy' },
    ],
  });
  platform = await startMem0Platform({ apiKey: CREDENTIALS.MEM0_API_KEY });
  proxy = await startProxy();
  fs.writeFileSync(
    path.join(tmp, 'deployment.json'),
    JSON.stringify(deployment('qwen3-coder-plus'), null, 2),
  );
  fs.writeFileSync(
    path.join(tmp, 'deployment-b.json'),
    JSON.stringify(deployment('qwen3-coder-next'), null, 2),
  );
});

afterAll(async () => {
  await Promise.all([generic?.close(), platform?.close(), proxy?.close()]);
  if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  section.write();
});

const describeFindings = (findings: readonly Finding[]) =>
  findings.length === 0
    ? undefined
    : `leaks ${[...new Set(findings.map((f) => `${f.canary} in ${f.where.startsWith(tmp) ? path.relative(tmp, f.where) : f.where}`))].sort().join('; ')}`;

describe('administrator flows through the built CLI', () => {
  it('render writes the install tree', async () => {
    const run = await cli('render', ['render', '--deployment', 'deployment.json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(fs.existsSync(path.join(install, 'manifest.json'))).toBe(true);
  });

  it('verify passes, as text and as a JSON report kept like a CI artefact', async () => {
    const text = await cli('verify', ['verify', '--dir', install, '--deployment', 'deployment.json']);
    expect(text.code).toBe(0);
    const json = await cli('verify --json', [
      'verify',
      '--dir',
      install,
      '--deployment',
      'deployment.json',
      '--json',
    ]);
    fs.writeFileSync(path.join(dirs().reports, 'verify-after-render.json'), json.stdout);
    expect(JSON.parse(json.stdout).ok).toBe(true);
  });

  it.each(PROFILES)('plan %s, as text and JSON, redacts every credential', async (kind) => {
    const json = await cli(`plan ${kind} --json`, ['plan', '--dir', install, '--profile', kind, '--json']);
    const text = await cli(`plan ${kind}`, ['plan', '--dir', install, '--profile', kind]);
    expect([json.code, text.code]).toEqual([0, 0]);
    fs.writeFileSync(path.join(dirs().plans, `${kind}.json`), json.stdout);
    fs.writeFileSync(path.join(dirs().plans, `${kind}.txt`), text.stdout);
    const credentials = (JSON.parse(json.stdout).environment as { source: string; value: string }[]).filter(
      (e) => e.source === 'credential',
    );
    expect(credentials.length).toBeGreaterThan(0);
    expect(credentials.every((e) => e.value === '<redacted>')).toBe(true);
  });
});

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

async function mcpSession(
  kind: 'on-demand' | 'write',
  calls: (client: Client) => Promise<void>,
  extraEnv: Record<string, string> = {},
): Promise<void> {
  const { client, stderr } = await connectMcp(path.join(install, 'runtime', 'mcp-server.js'), {
    // What Qwen passes on: the launcher's environment for the profile.
    env: env({
      QWEN_EXTERNAL_CONTEXT_CONFIG: path.join(install, 'profiles', kind, 'external-context.json'),
      ...extraEnv,
    }),
    cwd: path.join(install, 'runtime'),
    clientName: 'canaries',
  });
  try {
    await calls(client);
  } finally {
    await client.close();
    const via = extraEnv['HTTP_PROXY'] === undefined ? '' : ' via proxy';
    outputs.set(`mcp-server ${kind}${via} (stderr)`, stderr());
  }
}

describe("Qwen's side: the installed runtimes and the launcher", () => {
  const runtime = (file: string, stdin: string, extra: Record<string, string> = {}) =>
    runProgram(process.execPath, [path.join(install, 'runtime', file)], {
      cwd: dirs().repo,
      env: env(extra),
      stdin,
      killAfterMs: 15_000,
    });

  it('the auto-recall hook injects context after one sanitized search', async () => {
    const before = generic.requests.length;
    const run = keep(
      'auto-recall.js',
      await runtime(
        'auto-recall.js',
        promptSubmitEvent(dirs().repo, {
          prompt: `How should deployment work? ${PROMPT_CANARY}`,
          submitted_prompt: `How should deployment work? ${PROMPT_CANARY}\napi_key=${CREDENTIALS.MEM0_API_KEY} ${CREDENTIALS.CONTEXT_API_TOKEN}`,
        }),
        {
          QWEN_EXTERNAL_CONTEXT_CONFIG: path.join(
            install,
            'profiles',
            'auto-recall',
            'external-context.json',
          ),
        },
      ),
    );
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout).hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(generic.requests.slice(before).map((r) => r.body)).toEqual([
      { query: `How should deployment work? ${PROMPT_CANARY}`, limit: 5 },
    ]);
  });

  it('the write-confirmation hook asks with the exact memory text', async () => {
    const run = await runtime(
      'write-confirmation.js',
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        tool_name: 'mcp__external-context__context_remember',
        permission_mode: 'yolo',
        tool_input: { content: `Remember: ${CONTENT_CANARY}` },
      }),
    );
    confirmations.set('write-confirmation.js (stdout)', run.stdout);
    outputs.set('write-confirmation.js (stderr)', run.stderr);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const decision = JSON.parse(run.stdout).hookSpecificOutput;
    expect(decision.permissionDecision).toBe('ask');
    expect(decision.permissionDecisionReason).toBe(
      `${ASK_QUESTION}\n${JSON.stringify(`Remember: ${CONTENT_CANARY}`)}`,
    );
  });

  it('the approval guard asks in YOLO mode', async () => {
    const run = keep(
      'approval-guard.js',
      await runtime(
        'approval-guard.js',
        JSON.stringify({
          hook_event_name: 'PreToolUse',
          tool_name: 'run_shell_command',
          permission_mode: 'yolo',
          tool_input: { command: `echo ${PROMPT_CANARY}` },
        }),
      ),
    );
    expect(JSON.parse(run.stdout).hookSpecificOutput.permissionDecision).toBe('ask');
  });

  it('the MCP server of the on-demand profile searches', async () => {
    await mcpSession('on-demand', async (client) => {
      const result = (await client.callTool({
        name: 'context_search',
        arguments: { query: `deployment policy ${PROMPT_CANARY}` },
      })) as ToolResult;
      outputs.set('mcp on-demand context_search (result)', JSON.stringify(result));
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0]!.text).untrusted_external_context.items).toHaveLength(1);
    });
  });

  it('the MCP server of the on-demand profile searches through an HTTP proxy', async () => {
    await mcpSession(
      'on-demand',
      async (client) => {
        const result = (await client.callTool({
          name: 'context_search',
          arguments: { query: `deployment policy ${PROMPT_CANARY}` },
        })) as ToolResult;
        outputs.set('mcp on-demand via proxy context_search (result)', JSON.stringify(result));
        expect(result.isError).toBeFalsy();
      },
      { HTTP_PROXY: proxy.url },
    );
    expect(proxy.requests.map((r) => [r.kind, r.target])).toEqual([
      ['forward', `${generic.url}/v1/context/search`],
    ]);
  });

  it('the MCP server of the write profile searches, then remembers', async () => {
    await mcpSession('write', async (client) => {
      // Search first: once stored, the memory text is legitimately retrievable by a later search.
      const found = (await client.callTool({
        name: 'context_search',
        arguments: { query: `Remember ${PROMPT_CANARY}` },
      })) as ToolResult;
      const remembered = (await client.callTool({
        name: 'context_remember',
        arguments: { content: `Remember: ${CONTENT_CANARY}` },
      })) as ToolResult;
      outputs.set('mcp write context_remember (result)', JSON.stringify(remembered));
      outputs.set('mcp write context_search (result)', JSON.stringify(found));
      expect(JSON.parse(remembered.content[0]!.text).status).toBe('accepted');
      expect(found.isError).toBeFalsy();
    });
  });

  it.each([
    ['launch-qwen without a terminal', ['--profile', 'write']],
    ['launch-qwen with a refused argument', ['--profile', 'on-demand', '--yolo']],
  ])('%s is refused', async (label, args) => {
    const run = keep(
      label,
      await runProgram(path.join(install, 'bin', 'launch-qwen'), args, { cwd: dirs().repo, env: env() }),
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toBe('');
  });
});

describe('re-render and rollback', () => {
  it('a re-render with a changed deployment keeps the replaced files under backups/', async () => {
    const run = await cli('render (changed deployment)', ['render', '--deployment', 'deployment-b.json']);
    expect(run.code).toBe(0);
    expect(fs.readdirSync(path.join(install, 'backups')).length).toBe(1);
  });

  it('rollback of the auto-recall profile: dry run, then for real', async () => {
    const settings = path.join(install, 'profiles', 'auto-recall', 'system-settings.json');
    const before = fs.readFileSync(settings, 'utf8');
    expect(before).toContain('external-context-auto-recall');
    const dry = await cli('rollback --dry-run', [
      'rollback',
      '--dir',
      install,
      '--profile',
      'auto-recall',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^-.*external-context-auto-recall/m);
    expect(dry.stdout).toContain('rollback: dry run, nothing written');
    expect(fs.readFileSync(settings, 'utf8')).toBe(before);
    const real = await cli('rollback', ['rollback', '--dir', install, '--profile', 'auto-recall']);
    expect(real.code).toBe(0);
    expect(fs.readFileSync(settings, 'utf8')).not.toContain('external-context-auto-recall');
  });

  it('rollback of an upstream-style settings file, restoring a saved version-1 config', async () => {
    const { upstream } = dirs();
    const settings = path.join(upstream, 'settings.json');
    fs.writeFileSync(
      settings,
      JSON.stringify(
        {
          hooks: {
            UserPromptSubmit: [
              {
                matcher: '*',
                hooks: [
                  {
                    type: 'command',
                    command: `node ${path.join(install, 'runtime', 'auto-recall.js')}`,
                    name: 'external-context-auto-recall',
                  },
                  { type: 'command', command: 'true', name: 'my-own-hook' },
                ],
              },
            ],
          },
        },
        null,
        2,
      ),
    );
    const config = path.join(upstream, 'external-context.json');
    fs.copyFileSync(path.join(install, 'profiles', 'auto-recall', 'external-context.json'), config);
    const saved = path.join(upstream, 'saved-v1.json');
    fs.copyFileSync(path.join(install, 'profiles', 'on-demand', 'external-context.json'), saved);
    const script = keep(
      'scripts/rollback --dry-run',
      await runProgram(
        path.join(ROOT, 'scripts', 'rollback'),
        ['--settings', settings, '--restore-config', saved, '--config', config, '--dry-run'],
        { cwd: tmp, env: env({ QWEN_MANAGED_NODE: process.execPath }) },
      ),
    );
    expect(script.code).toBe(0);
    const run = await cli('rollback --settings', [
      'rollback',
      '--settings',
      settings,
      '--restore-config',
      saved,
      '--config',
      config,
    ]);
    expect(run.code).toBe(0);
    expect(fs.readFileSync(config)).toEqual(fs.readFileSync(saved));
    expect(fs.readdirSync(upstream).filter((f) => f.includes('backup')).length).toBe(2);
  });

  it('verify passes after the rollback', async () => {
    const run = await cli('verify --json (after rollback)', ['verify', '--dir', install, '--json']);
    fs.writeFileSync(path.join(dirs().reports, 'verify-after-rollback.json'), run.stdout);
    expect(JSON.parse(run.stdout).ok).toBe(true);
  });
});

describe('final check: nothing escaped', () => {
  it('the scanner itself finds the canaries where they are allowed', () => {
    const bodies = [...generic.requests, ...platform.requests]
      .map((r) => r.rawBody.toString('utf8'))
      .join('\n');
    expect(canariesIn(bodies, ['PROMPT', 'CONTENT'])).toEqual(['PROMPT', 'CONTENT']);
    expect(canariesIn([...confirmations.values()].join('\n'), ['CONTENT'])).toEqual(['CONTENT']);
    expect(
      scanFiles([secrets], CREDENTIAL_NAMES)
        .findings.map((f) => f.canary)
        .sort(),
    ).toEqual(['CONTEXT_API_TOKEN', 'MEM0_API_KEY']);
  });

  it(SUBJECTS.cli, () => {
    const admin = new Map([...outputs].filter(([label]) => !/\.js|mcp|launch-qwen/.test(label)));
    // A filtered run (no flows) must not pass for a clean one.
    const observed =
      describeFindings(scanTexts(admin, EVERYTHING)) ??
      (admin.size >= 20 ? NOTHING : `only ${admin.size} outputs to scan: the flows did not run`);
    section.check('cli', observed);
  });

  it(SUBJECTS.files, () => {
    const { scanned, findings } = scanFiles([tmp], EVERYTHING, (file) =>
      file.startsWith(`${secrets}${path.sep}`),
    );
    const rel = scanned.map((f) => path.relative(tmp, f));
    // The scan covered what the flows wrote: backups of render and rollback, reports, plans, settings backups.
    const missed = [
      /^install\/backups\/.+\/profiles\//,
      /^reports\/verify-after-rollback\.json$/,
      /^plans\/write\.txt$/,
      /^upstream\/settings\.json\.qwen-managed-backup-/,
    ].filter((expected) => !rel.some((r) => expected.test(r)));
    const observed =
      describeFindings(findings) ??
      (missed.length === 0 ? NOTHING : `nothing to scan matching ${missed.join(', ')}`);
    section.check('files', observed);
  });

  it(SUBJECTS.runtimes, () => {
    const runtimeOutputs = new Map([...outputs].filter(([label]) => /\.js|mcp|launch-qwen/.test(label)));
    const observed =
      describeFindings(scanTexts(runtimeOutputs, EVERYTHING)) ??
      (runtimeOutputs.size >= 10
        ? NOTHING
        : `only ${runtimeOutputs.size} outputs to scan: the flows did not run`);
    section.check('runtimes', observed);
  });

  it(SUBJECTS.confirmation, () => {
    const findings = scanTexts(confirmations, [...CREDENTIAL_NAMES, 'PROMPT']);
    const shown = canariesIn([...confirmations.values()].join('\n'), ['CONTENT']).length === 1;
    const observed =
      describeFindings(findings) ?? (shown ? EXPECTED.confirmation : 'memory text not shown to the user');
    section.check('confirmation', observed);
  });

  it(SUBJECTS.requests, () => {
    const problems: string[] = [];
    const credentialHeaders: Record<string, [string, string]> = {
      generic: ['authorization', `Bearer ${CREDENTIALS.CONTEXT_API_TOKEN}`],
      platform: ['authorization', `Token ${CREDENTIALS.MEM0_API_KEY}`],
    };
    for (const [name, service] of [
      ['generic', generic],
      ['platform', platform],
    ] as const) {
      for (const request of service.requests) {
        const [header, value] = credentialHeaders[name]!;
        const route = `${request.method} ${request.route}`;
        if (request.headers[header] !== value) problems.push(`${route} lacks its credential header`);
        const others = request.rawHeaders.filter((_, i) => i % 2 === 1).filter((v) => v !== value);
        const visible = [request.path, ...others, request.rawBody.toString('utf8')].join('\n');
        for (const canary of canariesIn(visible, CREDENTIAL_NAMES))
          problems.push(`${canary} outside the header of ${route}`);
        const body = request.body as Record<string, unknown>;
        const isSearch = name === 'generic' || route === PLATFORM_SEARCH_ROUTE;
        const promptOk = isSearch && String(body['query']).includes(PROMPT_CANARY);
        if (canariesIn(visible, ['PROMPT']).length > 0 && !promptOk)
          problems.push(`PROMPT outside the query of ${route}`);
        const contentOk =
          route === PLATFORM_ADD_ROUTE && JSON.stringify(body['messages']).includes(CONTENT_CANARY);
        if (canariesIn(visible, ['CONTENT']).length > 0 && !contentOk)
          problems.push(`CONTENT outside the write body of ${route}`);
      }
    }
    // One per flow: the hook, on-demand MCP direct and through the proxy (Generic HTTP); write MCP search and add.
    const counts = { generic: generic.requests.length, platform: platform.requests.length };
    if (counts.generic !== 3 || counts.platform !== 2) {
      problems.push(`${counts.generic} Generic HTTP and ${counts.platform} Mem0 requests instead of 3 and 2`);
    }
    const observed = problems.length === 0 ? EXPECTED.requests : [...new Set(problems)].sort().join('; ');
    section.check('requests', observed);
  });

  it(SUBJECTS.inherited, async () => {
    const staged = path.join(tmp, 'staged-example');
    const render = await runCli(
      [
        'render',
        '--deployment',
        path.join(ROOT, 'examples', 'deployments', 'auto-recall.json'),
        '--out',
        staged,
      ],
      { cwd: tmp, env: env() },
    );
    const texts = new Map<string, string>();
    const codes = [render.code];
    for (const flag of [[], ['--json']]) {
      const run = await runCli(['plan', '--dir', staged, '--profile', 'auto-recall', ...flag], {
        cwd: tmp,
        env: env(),
      });
      codes.push(run.code);
      texts.set(`plan ${flag.join(' ')}`.trim(), `${run.stdout}\n${run.stderr}`);
    }
    const findings = scanTexts(texts, CREDENTIAL_NAMES);
    const observed =
      findings.length > 0
        ? `prints ${[...new Set(findings.map((f) => `${f.canary} (${f.where})`))].join(', ')}`
        : codes.every((c) => c === 0)
          ? EXPECTED.inherited
          : `render and plan exit ${codes.join(', ')}`;
    section.check('inherited', observed);
  });
});
