import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../../src/cli/command.js';
import { InputError, UsageError } from '../../../src/cli/command-errors.js';
import { serveContextCommand } from '../../../src/cli/commands/serve-context.js';
import { startContextServer } from '../../../src/serve/server.js';
import { makeFolder, removeFolder, SEARCH, type Sink, sink } from './harness.js';

const TOKEN = 'cli-token-91b2c4d7e0';

function io(dir: string, env: Record<string, string | undefined> = { CONTEXT_API_TOKEN: TOKEN }) {
  const stdout = sink();
  const stderr = sink();
  const cliIo: CliIO = { env, cwd: dir, stdin: Readable.from([]), stdout, stderr };
  return { cliIo, stdout, stderr };
}

/** The command as the program wires it, its shutdown signal never sent. */
const standalone = serveContextCommand({ onShutdownSignal: () => () => {} });

/** A command whose shutdown "signal" the test fires, and a promise for its announced URL. */
function controllable() {
  let stop: (() => void) | undefined;
  let unregistered = false;
  const command = serveContextCommand({
    startServer: startContextServer,
    onShutdownSignal: (s: () => void) => {
      stop = s;
      return () => {
        unregistered = true;
      };
    },
  });
  return {
    command,
    stop: () => stop?.(),
    wasUnregistered: () => unregistered,
  };
}

/** Resolves with the URL once the command has printed its listening line. */
async function listeningUrl(stdout: Sink): Promise<string> {
  return (await stdout.waitFor(/listening on (http:\/\/\S+)\n/))[1]!;
}

describe('serve-context command', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const dir of folders.splice(0)) await removeFolder(dir);
  });
  async function docs(): Promise<string> {
    const dir = await makeFolder({
      'docs/deploy.md': '# Deployment\n\nShip small changes behind a canary.\n',
    });
    folders.push(dir);
    return dir;
  }

  it('is named and described for the main program', () => {
    expect([standalone.name, standalone.help.includes('--token-env NAME')]).toEqual(['serve-context', true]);
  });

  it('serves the folder, prints one line with the URL, and stops cleanly on the shutdown signal', async () => {
    const dir = await docs();
    const { cliIo, stdout, stderr } = io(dir);
    const { command, stop, wasUnregistered } = controllable();
    const exit = command.run(['--dir', 'docs', '--port', '0'], cliIo);
    const url = await listeningUrl(stdout);
    const response = await fetch(`${url}${SEARCH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'canary deployment', limit: 5 }),
    });
    const body = (await response.json()) as { items: { id: string }[] };
    stop();
    expect(await exit).toBe(0);
    await expect(fetch(`${url}${SEARCH}`, { method: 'POST' })).rejects.toThrow();
    expect({
      url,
      stdout: stdout.text(),
      ids: body.items.map((item) => item.id),
      unregistered: wasUnregistered(),
      log: stderr.text().includes('canary'),
    }).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      stdout: `serve-context: listening on ${url}\n`,
      ids: ['deploy.md#deployment'],
      unregistered: true,
      log: false,
    });
    expect(stderr.text()).toMatch(/ POST \/v1\/context\/search 200 \d+ms items=1\n$/);
  });

  it('reads the token from the variable named by --token-env and logs queries with --log-queries', async () => {
    const dir = await docs();
    const { cliIo, stdout, stderr } = io(dir, { KB_TOKEN: 'other-token-5e8a1f03' });
    const { command, stop } = controllable();
    const exit = command.run(
      ['--dir', `${dir}/docs`, '--port', '0', '--token-env', 'KB_TOKEN', '--log-queries'],
      cliIo,
    );
    const url = await listeningUrl(stdout);
    const response = await fetch(`${url}${SEARCH}`, {
      method: 'POST',
      headers: { authorization: 'Bearer other-token-5e8a1f03', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'canary', limit: 5 }),
    });
    await response.body?.cancel();
    stop();
    expect([response.status, await exit, stderr.text().includes('query="canary"')]).toEqual([200, 0, true]);
  });

  it('prints its help', async () => {
    const { cliIo, stdout } = io('/');
    expect(await standalone.run(['--help'], cliIo)).toBe(0);
    expect(stdout.text()).toBe(standalone.help);
  });

  it.each([
    ['no --dir', []],
    ['an empty --dir', ['--dir', '']],
    ['an unknown flag', ['--dir', 'docs', '--verbose']],
    ['a positional argument', ['--dir', 'docs', 'extra']],
    ['--port without a value', ['--dir', 'docs', '--port']],
    ['a non-numeric port', ['--dir', 'docs', '--port', 'http']],
    ['a negative port', ['--dir', 'docs', '--port', '-1']],
    ['a port over 65535', ['--dir', 'docs', '--port', '65536']],
    ['an empty host', ['--dir', 'docs', '--host', '']],
    ['a --token-env that is not a variable name', ['--dir', 'docs', '--token-env', 'MY-TOKEN']],
  ])('refuses %s with a usage error', async (_name, args) => {
    const dir = await docs();
    await expect(standalone.run(args, io(dir).cliIo)).rejects.toBeInstanceOf(UsageError);
  });

  it.each([
    ['is not set', {}],
    ['is empty', { CONTEXT_API_TOKEN: '' }],
  ])('refuses to start when the token variable %s, naming the variable', async (_name, env) => {
    const dir = await docs();
    const run = standalone.run(['--dir', 'docs'], io(dir, env).cliIo);
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow(/environment variable CONTEXT_API_TOKEN is not set or empty/);
  });

  // Anyone who reaches the port may try tokens at request speed: a 1-character one fell at the first
  // guesses. The length is said, never the token.
  it.each([
    ['1 character', 'Q', true],
    ['15 characters', 'q5-short-secret', true],
    ['16 characters (the control)', 'k'.repeat(16), false],
  ])(
    'a token of %s: refused below the minimum, naming the variable, its length and the fix',
    async (_name, token, refused) => {
      const dir = await docs();
      const { cliIo, stdout } = io(dir, { CONTEXT_API_TOKEN: token });
      const { command, stop } = controllable();
      const run = command.run(['--dir', 'docs', '--port', '0'], cliIo);
      if (refused) {
        const message = await run.then(
          () => 'started',
          (error: Error) => (error instanceof InputError ? error.message : `${error}`),
        );
        expect(message).toMatch(
          new RegExp(
            `^serve-context: environment variable CONTEXT_API_TOKEN holds a ${token.length}-character token; the server needs at least 16 .*Fix: .*openssl rand -hex 32`,
          ),
        );
        if (token.length > 1) expect(message).not.toContain(token);
      } else {
        await listeningUrl(stdout);
        stop();
        expect(await run).toBe(0);
      }
    },
  );

  it.each([
    ['a missing folder', 'nope'],
    ['a file', 'docs/deploy.md'],
  ])('refuses %s as --dir', async (_name, target) => {
    const dir = await docs();
    await expect(standalone.run(['--dir', target], io(dir).cliIo)).rejects.toThrow(
      /is not a readable directory/,
    );
  });

  it('reports a port already in use as an input error with the errno code and the fix', async () => {
    const dir = await docs();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const run = standalone.run(['--dir', 'docs', '--port', String(port)], io(dir).cliIo);
    await expect(run).rejects.toThrow(
      new InputError(
        `serve-context: cannot serve ${dir}/docs on 127.0.0.1:${port} (EADDRINUSE). Fix: choose another --port (0 picks a free one)`,
      ),
    );
    await new Promise((resolve) => blocker.close(resolve));
  });

  it('reports an address that is not this machine as an input error with the fix', async () => {
    const dir = await docs();
    // TEST-NET-3 (RFC 5737): never an address of this machine.
    const run = standalone.run(['--dir', 'docs', '--host', '203.0.113.5', '--port', '0'], io(dir).cliIo);
    await expect(run).rejects.toThrow(
      new InputError(
        `serve-context: cannot serve ${dir}/docs on 203.0.113.5:0 (EADDRNOTAVAIL). Fix: give --host an address of this machine (default 127.0.0.1)`,
      ),
    );
  });
});
