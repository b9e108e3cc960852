// Step 4b: what the repository (and the user's home) would carry into Qwen. The launcher reads the
// very files Qwen 0.24 is about to read — its `.env` files, and in a trusted repository the
// workspace settings and project agents — and decides each with the rules of
// src/policy/repository.ts: plain `.env` names are kept out, anything that cannot be kept out
// refuses the launch, naming the file and the variable or key.
import { parse as parseDotenv } from 'dotenv';
import { parseJsonc } from '../src/deploy/jsonc/parse.js';
import type { LaunchPlan } from '../src/deploy/launch-plan.js';
import type { NamePlatform } from '../src/policy/environment-names.js';
import {
  decideAgent,
  decideEnvFiles,
  decideWorkspaceSettings,
  type EnvFileContent,
  REPOSITORY_POLICY,
  type Refusal,
} from '../src/policy/repository.js';
import { type EnvFile, envFilesQwenLoads, type PathOps, QWEN_DIR } from '../src/qwen/env-files.js';
import type { SettingFact } from '../src/qwen/versions.js';
import type { JsonObject } from '../src/text/json.js';

export interface RepositoryFs {
  existsSync(path: string): boolean;
  realpathSync(path: string): string;
  statSync(path: string): { isFile(): boolean; isDirectory(): boolean; size: number };
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string): string[];
}

export interface RepositoryInput {
  plan: Pick<LaunchPlan, 'cwd' | 'repositoryTrust' | 'environment'>;
  /** Qwen's environment as the launcher built it. */
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  qwenHome: string;
  platform: NamePlatform;
  /** The profile's managed system settings, read only when a workspace settings file exists. */
  systemSettings: () => JsonObject;
  facts: Readonly<Record<string, SettingFact>>;
  fs: RepositoryFs;
  path: PathOps;
  /** The front-matter reader (runtime/launch-agents.js), loaded only when project agents exist. */
  loadFrontMatter: () => Promise<{ frontMatterKeys(text: string): string[] }>;
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

/** Reads a file Qwen will read, or says why it cannot be judged (which refuses the launch). */
function readJudged(fs: RepositoryFs, file: string, key: string): { text: string } | { refusal: Refusal } {
  let size: number;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return {
        refusal: {
          file,
          key,
          why: 'it is not a regular file, so it cannot be checked',
          fix: 'replace it with a regular file or remove it',
        },
      };
    }
    size = stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return {
      refusal: { file, key, why: `it cannot be inspected (${code})`, fix: 'make it readable or remove it' },
    };
  }
  if (size > REPOSITORY_POLICY.envFiles.maxBytes) {
    return {
      refusal: {
        file,
        key,
        why: `it is larger than ${REPOSITORY_POLICY.envFiles.maxBytes} bytes, so it is not checked`,
        fix: 'shrink it or remove it',
      },
    };
  }
  try {
    return { text: fs.readFileSync(file, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return {
      refusal: { file, key, why: `it cannot be read (${code})`, fix: 'make it readable or remove it' },
    };
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
    const read = readJudged(fs, file.path, '(the whole file)');
    if ('refusal' in read) refused.push(read.refusal);
    else contents.push({ file, names: Object.keys(parseDotenv(read.text)) });
  }
  const context = { env: input.env, fromFiles: plan.environment.fromFiles, platform: input.platform };
  const decision = decideEnvFiles(contents, context);
  refused.push(...decision.refused);

  if (trusted) {
    let realStart = plan.cwd;
    let realHome = input.home;
    try {
      realStart = fs.realpathSync(plan.cwd);
      realHome = fs.realpathSync(input.home);
    } catch {
      // As Qwen: an unresolvable path is compared as given.
    }
    // Qwen reads no workspace settings when the repository is HOME (they would be the user's).
    const settingsFile = path.join(plan.cwd, QWEN_DIR, 'settings.json');
    if (realStart !== realHome && fs.existsSync(settingsFile)) {
      const read = readJudged(fs, settingsFile, '(the whole file)');
      if ('refusal' in read) refused.push(read.refusal);
      else {
        let parsed: unknown;
        try {
          parsed = parseJsonc(read.text.replace(/^\uFEFF/, '')).value;
        } catch {
          parsed = undefined;
          refused.push({
            file: settingsFile,
            key: '(the whole file)',
            why: 'it is not valid JSON, so what Qwen would take from it cannot be checked',
            fix: 'fix the JSON or remove the file',
          });
        }
        if (parsed !== undefined) {
          refused.push(
            ...decideWorkspaceSettings(parsed, {
              ...context,
              file: settingsFile,
              system: input.systemSettings(),
              facts: input.facts,
            }),
          );
        }
      }
    }
    const agentsDir = path.join(plan.cwd, QWEN_DIR, 'agents');
    if (fs.existsSync(agentsDir)) {
      let names: string[] = [];
      try {
        names = fs
          .readdirSync(agentsDir)
          .filter((name) => name.endsWith('.md'))
          .sort();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        refused.push({
          file: agentsDir,
          key: '(the directory)',
          why: `it cannot be listed (${code})`,
          fix: 'make it readable or remove it',
        });
      }
      const reader = names.length > 0 ? await input.loadFrontMatter() : undefined;
      for (const name of names) {
        const file = path.join(agentsDir, name);
        const read = readJudged(fs, file, '(the whole file)');
        if ('refusal' in read) {
          refused.push(read.refusal);
          continue;
        }
        refused.push(...decideAgent(file, reader!.frontMatterKeys(read.text)));
      }
    }
  }
  return { trusted, envFiles, excluded: decision.excluded, allowed: decision.allowed, refused };
}
