// What the benchmark runs against: a loopback Generic HTTP provider that answers 5 items at once,
// runtime configs, hook inputs, and an install directory rendered by the real `qwen-managed render`.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import http from 'node:http';
import * as path from 'node:path';
import { preToolUseEvent, promptSubmitEvent } from '../shared/hook-events.js';
import { type Loopback, listenOnLoopback } from '../shared/loopback.js';

export const TOKEN = 'bench-token-not-a-secret';

export function startProvider(): Promise<Loopback> {
  const items = Array.from({ length: 5 }, (_, i) => ({
    id: `doc-${i}`,
    content: `Deployment step ${i}: changes ship through the release train after review. `.repeat(4),
    title: `Deployment guide section ${i}`,
    uri: `kb://deployment#${i}`,
    score: 1 - i / 10,
    updated_at: '2026-11-01T00:00:00Z',
  }));
  const body = JSON.stringify({ items });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  return listenOnLoopback(server);
}

/**
 * The credential broker in its own process (scripts/bench/broker-child.ts) in front of `upstream`,
 * adding `token`; resolves with its origin once it listens.
 */
export function startBroker(
  upstream: string,
  token: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'broker-child.ts'), upstream, token],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let first = '';
    const onData = (chunk: Buffer) => {
      first += chunk.toString();
      const end = first.indexOf('\n');
      if (end === -1) return;
      // Later output is the audit: read and dropped, as a journal would take it.
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({
        url: `http://127.0.0.1:${first.slice(0, end)}`,
        close: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill();
          }),
      });
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`bench broker exited ${code}`)));
  });
}

export function writeJson(file: string, value: unknown): string {
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

/** The UserPromptSubmit event of a prompt typed in `cwd`; `over` replaces fields. */
export const hookEvent = promptSubmitEvent;

export const rememberEvent = preToolUseEvent({
  tool_input: { content: 'Release branches are cut on Tuesdays.' },
});

/**
 * Renders an on-demand install whose "Qwen" is a stub that exits at once. With `qwenPackage` (the
 * real package directory) the stub replaces cli.js in a hard-linked copy of the whole package, so
 * the launcher checks as many files as it does for a real Qwen. `variant` renders a second install
 * (`install-<variant>`) from another build of the runtimes (`runtimeDir`) beside the first.
 */
export function renderLauncherInstall(
  work: string,
  node: string,
  cli: string,
  providerUrl: string,
  qwenPackage?: string,
  variant?: { name: string; runtimeDir: string },
): string {
  const suffix = variant === undefined ? '' : `-${variant.name}`;
  const installDir = path.join(work, `install${suffix}`);
  const repo = path.join(work, 'repo');
  fs.mkdirSync(repo, { recursive: true });
  let stub = path.join(work, 'stub-qwen.js');
  if (qwenPackage !== undefined && fs.existsSync(qwenPackage)) {
    const copy = path.join(work, 'qwen-package');
    if (!fs.existsSync(copy)) execFileSync('cp', ['-al', qwenPackage, copy]);
    stub = path.join(copy, 'cli.js');
    fs.rmSync(stub, { force: true });
  }
  fs.writeFileSync(stub, 'process.exitCode = 0;\n');
  const deployment = writeJson(path.join(work, `deployment${suffix}.json`), {
    version: 1,
    platform: 'posix',
    installDir,
    node,
    qwenCli: stub,
    repositoryRoot: repo,
    environment: { PATH: '/usr/bin:/bin', inherit: ['TERM'], set: {} },
    credentials: { CONTEXT_API_TOKEN: { inherit: true } },
    profiles: {
      'on-demand': {
        provider: { type: 'generic-http-search-v1', baseUrl: providerUrl, tokenEnv: 'CONTEXT_API_TOKEN' },
        timeoutMs: 5000,
      },
    },
  });
  const runtime = variant === undefined ? [] : ['--runtime-dir', variant.runtimeDir];
  execFileSync(process.execPath, [cli, 'render', '--deployment', deployment, ...runtime], {
    stdio: 'ignore',
  });
  return installDir;
}
