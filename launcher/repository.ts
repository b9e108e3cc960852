// Step 4b: what the repository (and the user's home) would carry into Qwen. The launcher reads the
// very files Qwen 0.24 is about to read — its `.env` files, and in a trusted repository the
// workspace settings and project agents — and decides each with the rules of
// src/policy/repository.ts (docs/repository.md): plain `.env` names are kept out, anything that
// cannot be kept out refuses the launch, naming the file and the variable or key.
import { parse as parseDotenv } from 'dotenv';
import type { Platform } from '../src/base/platform.js';
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import {
  decideEnvFiles,
  type EnvFileContent,
  type EnvRuleContext,
  REPOSITORY_POLICY,
  type Refusal,
} from '../src/policy/repository.js';
import { type EnvFile, envFilesQwenLoads, type PathOps, QWEN_DIR } from '../src/qwen/env-files.js';
import type { JsonObject } from '../src/text/json.js';

export interface RepositoryFs {
  existsSync(path: string): boolean;
  realpathSync(path: string): string;
  statSync(path: string): { isFile(): boolean; isDirectory(): boolean; size: number };
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string): string[];
}

/** What the lazily loaded project part (runtime/launch-repository.js) is given. */
export interface ProjectInput {
  plan: Pick<LaunchPlan, 'cwd'>;
  rules: EnvRuleContext;
  /** `<repo>/.qwen/settings.json` when Qwen will read it. */
  settingsFile: string | undefined;
  /** `<repo>/.qwen/agents/` exists. */
  agents: boolean;
  /** The profile's managed system settings (read only when a workspace settings file exists). */
  systemSettings: () => JsonObject;
  qwenVersion: string;
  fs: RepositoryFs;
  path: PathOps;
}

export interface RepositoryInput {
  plan: Pick<LaunchPlan, 'cwd' | 'repositoryTrust' | 'environment'>;
  /** Qwen's environment as the launcher built it. */
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  qwenHome: string;
  platform: Platform;
  systemSettings: () => JsonObject;
  qwenVersion: string;
  fs: RepositoryFs;
  path: PathOps;
  /** The project part (runtime/launch-repository.js), loaded only for a repository that needs it. */
  loadProject: () => Promise<{ inspectProject(input: ProjectInput): Refusal[] }>;
}

export interface RepositoryReport {
  trusted: boolean;
  /** The `.env` files Qwen will load, in its order. */
  envFiles: EnvFile[];
  /** Names kept out of Qwen's environment (`advanced.excludedEnvVars` of this launch). */
  excluded: string[];
  allowed: Array<{ name: string; file: string }>;
  refused: Refusal[];
}

const WHOLE_FILE = '(the whole file)';

/** Reads a file Qwen will read, or says why it cannot be judged (which refuses the launch). */
export function readJudged(fs: RepositoryFs, file: string): { text: string } | { refusal: Refusal } {
  const refusal = (why: string, fix: string) => ({ refusal: { file, key: WHOLE_FILE, why, fix } });
  let size: number;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile())
      return refusal(
        'it is not a regular file, so it cannot be checked',
        'replace it with a regular file or remove it',
      );
    size = stat.size;
  } catch (error) {
    return refusal(
      `it cannot be inspected (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'make it readable or remove it',
    );
  }
  if (size > REPOSITORY_POLICY.envFiles.maxBytes) {
    return refusal(
      `it is larger than ${REPOSITORY_POLICY.envFiles.maxBytes} bytes, so it is not checked`,
      'shrink it or remove it',
    );
  }
  try {
    return { text: fs.readFileSync(file, 'utf8') };
  } catch (error) {
    return refusal(
      `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'make it readable or remove it',
    );
  }
}

function realOr(fs: RepositoryFs, file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    // As Qwen: an unresolvable path is compared as given.
    return file;
  }
}

export async function inspectRepository(input: RepositoryInput): Promise<RepositoryReport> {
  const { fs, path, plan } = input;
  const trusted = plan.repositoryTrust === 'trusted';
  const envFiles = envFilesQwenLoads({
    startDir: plan.cwd,
    home: input.home,
    qwenHome: input.qwenHome,
    trusted,
    fs,
    path,
  });
  const refused: Refusal[] = [];
  const contents: EnvFileContent[] = [];
  for (const file of envFiles) {
    const read = readJudged(fs, file.path);
    if ('refusal' in read) refused.push(read.refusal);
    else contents.push({ file, names: Object.keys(parseDotenv(read.text)) });
  }
  const rules: EnvRuleContext = {
    env: input.env,
    fromFiles: plan.environment.fromFiles,
    platform: input.platform,
  };
  const decision = decideEnvFiles(contents, rules);
  refused.push(...decision.refused);

  if (trusted) {
    // Qwen reads no workspace settings when the repository is HOME (they would be the user's).
    const settingsFile = path.join(plan.cwd, QWEN_DIR, 'settings.json');
    const readsSettings = realOr(fs, plan.cwd) !== realOr(fs, input.home) && fs.existsSync(settingsFile);
    const agents = fs.existsSync(path.join(plan.cwd, QWEN_DIR, 'agents'));
    if (readsSettings || agents) {
      const project = await input.loadProject();
      refused.push(
        ...project.inspectProject({
          plan,
          rules,
          settingsFile: readsSettings ? settingsFile : undefined,
          agents,
          systemSettings: input.systemSettings,
          qwenVersion: input.qwenVersion,
          fs,
          path,
        }),
      );
    }
  }
  return { trusted, envFiles, excluded: decision.excluded, allowed: decision.allowed, refused };
}
