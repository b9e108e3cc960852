// An in-memory launch plan for the pure launcher tests (validated by the shared schema).
import type { LaunchPlan } from '../../../src/contracts/launch-plan.js';
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';

export const INSTALL = '/opt/qwen-managed';
export const PROFILE_DIR = `${INSTALL}/profiles/on-demand`;

export function samplePlan(edit: (plan: LaunchPlan) => void = () => {}): LaunchPlan {
  const plan: LaunchPlan = {
    version: 1,
    profile: 'on-demand',
    platform: 'posix',
    installDir: INSTALL,
    installId: '0123456789abcdef',
    node: '/usr/local/bin/node',
    qwenCli: '/opt/qwen/lib/node_modules/@qwen-code/qwen-code/cli.js',
    argv: ['--extensions', 'none'],
    cwd: '/srv/repos/app',
    repositoryTrust: 'trusted',
    environment: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      inherit: ['TERM', 'LANG', 'OPENAI_API_KEY'],
      set: { NO_PROXY: 'localhost,127.0.0.1,[::1]' },
      files: {
        QWEN_CODE_SYSTEM_SETTINGS_PATH: `${PROFILE_DIR}/system-settings.json`,
        QWEN_CODE_SYSTEM_DEFAULTS_PATH: `${PROFILE_DIR}/system-defaults.json`,
        QWEN_CODE_TRUSTED_FOLDERS_PATH: `${PROFILE_DIR}/trusted-folders.json`,
      },
      fromFiles: [],
    },
    credentials: { CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' } },
    externalContext: {
      argv: ['--mcp-config', `${PROFILE_DIR}/mcp.json`],
      configFile: `${PROFILE_DIR}/external-context.json`,
      credentials: ['CONTEXT_API_TOKEN'],
    },
  };
  edit(plan);
  return launchPlanSchema.parse(plan);
}
