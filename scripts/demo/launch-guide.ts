// Step 7: what changes between this demo and a real auto-recall install.
import type { Workspace } from './workspace.js';

export function launchGuide(workspace: Workspace): string {
  const qwen = workspace.placeholderQwen
    ? 'the demo used a placeholder cli.js; install @qwen-code/qwen-code@0.24.4'
    : 'the demo used the e2e copy in .cache/e2e';
  return `Start from examples/deployments/auto-recall.json (the demo's was ${workspace.deploymentFile}) and set:
  node            an absolute Node 22 (Qwen 0.24.4 needs it; the demo used this Node)
  qwenCli         the installed Qwen's cli.js (${qwen})
  installDir      a root-owned directory such as /opt/qwen-managed (the launcher refuses a
                  tree anyone but root or the rendering admin can write)
  repositoryRoot  the repository developers open
  provider        your knowledge base's https baseUrl (or serve-context --dir ./docs on a host)
  credentials     an admin-owned token file only the intended developers can read, plus the
                  model key with "profiles": ["auto-recall"]
  settings        the model and its auth (model.name, security.auth.selectedType and baseUrl)
Then, with qwen-managed = node dist/cli/qwen-managed.js from this checkout:
  sudo qwen-managed render --deployment deployment.json
  qwen-managed verify --dir /opt/qwen-managed --deployment deployment.json
  /opt/qwen-managed/bin/launch-qwen --profile auto-recall    # in a terminal; link it onto PATH
Every profile, the manifest and the trust boundary: docs/admin.md`;
}
