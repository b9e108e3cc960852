// The auto-recall deployment the demo renders: the shape of examples/deployments/auto-recall.json,
// pointed at the temporary install, this Node, the local context server and the demo token file.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { TOKEN_ENV } from './context-server.js';
import type { Workspace } from './workspace.js';

export function demoDeployment(workspace: Workspace, serverUrl: string): Record<string, unknown> {
  return {
    version: 1,
    platform: 'posix',
    installDir: workspace.install,
    // Qwen 0.24.4 itself needs Node 22 (render and verify refuse an older one beside a real Qwen package,
    // and warn beside the placeholder); the hook and the plan only need a Node.
    node: workspace.node,
    qwenCli: workspace.qwenCli,
    repositoryRoot: workspace.repo,
    environment: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      inherit: ['TERM', 'COLORTERM', 'LANG', 'LC_ALL', 'TZ'],
    },
    // Who launches: you. verify then checks the token file is readable by you and by no one else.
    developers: { users: [os.userInfo().username] },
    credentials: { [TOKEN_ENV]: { file: workspace.tokenFile } },
    profiles: {
      'auto-recall': {
        provider: { type: 'generic-http-search-v1', baseUrl: serverUrl, tokenEnv: TOKEN_ENV },
        timeoutMs: 1500,
      },
    },
  };
}

export function writeDeployment(workspace: Workspace, serverUrl: string): void {
  fs.writeFileSync(
    workspace.deploymentFile,
    `${JSON.stringify(demoDeployment(workspace, serverUrl), null, 2)}\n`,
  );
}
