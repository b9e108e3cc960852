// `qwen-managed serve-context`: runs the reference Generic HTTP Search v1 server over a docs folder.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CREDENTIAL_NAME } from '../../config/names.js';
import { MIN_TOKEN_LENGTH } from '../../serve/auth.js';
import { type ContextServer, type ContextServerOptions, startContextServer } from '../../serve/server.js';
import { defineCommand } from '../command.js';
import { InputError, UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';

export interface ServeContextDeps extends Pick<AdminDeps, 'onShutdownSignal'> {
  /** Starts the server (default: the reference server, src/serve/server.ts). */
  startServer?(options: ContextServerOptions): Promise<ContextServer>;
}

const DEFAULT_TOKEN_ENV = 'CONTEXT_API_TOKEN';
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8787;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** What to change when the server cannot listen, by errno code. */
const LISTEN_FIXES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'choose another --port (0 picks a free one)',
  EACCES: 'choose a --port from 1024 up (a lower one needs root)',
  EADDRNOTAVAIL: `give --host an address of this machine (default ${DEFAULT_HOST})`,
  ENOTFOUND: `give --host an address of this machine (default ${DEFAULT_HOST})`,
};

const HELP = `Usage: qwen-managed serve-context --dir DOCS [--host HOST] [--port N] [--token-env NAME] [--log-queries]

Serves a folder of Markdown (.md, .markdown) and text (.txt) files as a Generic HTTP Search v1
endpoint (POST /v1/context/search) with a full-text index that follows file changes.

Options:
  --dir DOCS        folder to serve (required)
  --host HOST       address to listen on (default ${DEFAULT_HOST})
  --port N          port to listen on, 0 for any free port (default ${DEFAULT_PORT})
  --token-env NAME  environment variable holding the bearer token clients must send
                    (default ${DEFAULT_TOKEN_ENV}); the server refuses to start without it
                    or with one shorter than ${MIN_TOKEN_LENGTH} characters
  --log-queries     include query text in the access log on stderr (off by default)
  -h, --help        show this help

Prints one line with the URL to use as the provider's baseUrl; stops on SIGINT or SIGTERM.
`;

const FLAGS = {
  dir: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'token-env': { type: 'string' },
  'log-queries': { type: 'boolean' },
} as const;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 0 && port <= 65535))
    throw new UsageError('serve-context: --port must be an integer from 0 to 65535');
  return port;
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new InputError(`serve-context: --dir ${dir} is not a readable directory`);
  }
}

export const serveContextCommand = defineCommand({
  name: 'serve-context',
  summary: 'Serve a folder of Markdown/text files as a Generic HTTP Search v1 context endpoint',
  help: HELP,
  flags: FLAGS,
  async run(flags, io, deps: ServeContextDeps) {
    const dir = resolve(io.cwd, required('serve-context', 'dir', flags.dir));
    const host = flags.host ?? DEFAULT_HOST;
    if (host === '') throw new UsageError('serve-context: --host must not be empty');
    const port = parsePort(flags.port);
    const tokenEnv = flags['token-env'] ?? DEFAULT_TOKEN_ENV;
    if (!CREDENTIAL_NAME.test(tokenEnv)) {
      throw new UsageError('serve-context: --token-env must be an environment variable name');
    }
    const token = io.env[tokenEnv];
    if (token === undefined || token === '') {
      throw new InputError(
        `serve-context: environment variable ${tokenEnv} is not set or empty; set it to the bearer token clients will send`,
      );
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      // Never the token itself: its length says what is wrong.
      throw new InputError(
        `serve-context: environment variable ${tokenEnv} holds a ${token.length}-character token; the server needs at least ${MIN_TOKEN_LENGTH} (anyone who can reach the port may guess a short one). Fix: set it to a random one, e.g. ${tokenEnv}=$(openssl rand -hex 32), and give clients the same`,
      );
    }
    await requireDirectory(dir);

    let server: ContextServer;
    try {
      server = await (deps.startServer ?? startContextServer)({
        dir,
        token,
        host,
        port,
        logQueries: flags['log-queries'] === true,
        log: io.stderr,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const fix = LISTEN_FIXES[code];
      throw new InputError(
        `serve-context: cannot serve ${dir} on ${host}:${port} (${code})${fix === undefined ? '' : `. Fix: ${fix}`}`,
      );
    }
    if (!LOOPBACK.has(host)) {
      // The bearer token travels in clear over plain HTTP; only loopback keeps it off the network.
      io.stderr.write(
        'serve-context: warning: plain HTTP on a non-loopback address; put TLS in front of it\n',
      );
    }
    io.stdout.write(`serve-context: listening on ${server.url}\n`);

    let unregister = () => {};
    await new Promise<void>((stop) => {
      unregister = deps.onShutdownSignal(stop);
    });
    unregister();
    await server.close();
    return 0;
  },
});
