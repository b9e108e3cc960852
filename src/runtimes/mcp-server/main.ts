// The stdio MCP server `external-context`, bundled as mcp-server-main.js and started by its entry,
// mcp-server.js (compiled from its render-time code cache when there is one). stdout carries only
// protocol; the only other output is one fixed startup error line on stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigurationError } from '../../base/errors.js';
import { loadRuntimeConfig } from '../../config/load.js';
import { createTransport } from '../../http/create-transport.js';
import type { TransportHandle } from '../../http/transport.js';
import { createProvider } from '../../providers/factory.js';
import { lookupPending, silenceWarnings } from '../shared/process.js';
import { createExternalContextServer } from './server.js';

declare const TOOLKIT_VERSION: string;
const STARTUP_FAILED = 'The external context server could not start.';

export async function main(): Promise<void> {
  silenceWarnings();
  let transport: TransportHandle;
  let server: ReturnType<typeof createExternalContextServer>;
  try {
    // Version 1 only: a version-2 (auto-recall) file is a startup error.
    const { config, credential } = loadRuntimeConfig(process.env, 1);
    // Installed once for the server's lifetime.
    transport = await createTransport(process.env, { timeoutMs: config.timeoutMs });
    const provider = createProvider(config.provider, credential, { transport: transport.transport });
    server = createExternalContextServer({
      config,
      provider,
      version: typeof TOOLKIT_VERSION === 'string' ? TOOLKIT_VERSION : '0.0.0',
    });
  } catch (error) {
    const message = error instanceof ConfigurationError ? error.message : STARTUP_FAILED;
    process.stderr.write(`[external-context] ${message}\n`);
    process.exit(1);
  }
  const stdio = new StdioServerTransport();
  const shutdown = () => {
    void transport.close().finally(() => {
      // process.exit() waits for every threadpool thread, and a provider host name whose resolver
      // never answers holds one in getaddrinfo, which nothing cancels: the server outlived its closed
      // stdin by the resolver's whole timeout, and Qwen 0.24.4's /quit waited 2 s for it before its
      // SIGTERM (measured). Nothing is left to answer: end now.
      if (lookupPending()) process.kill(process.pid, 'SIGKILL');
      process.exit(0);
    });
  };
  // The client closing stdin ends the session; a proxy agent's sockets must not keep us alive.
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  await server.connect(stdio);
}
