// Step 4b: what the repository (and the user's home) would carry into Qwen. The launcher reads the
// very files Qwen 0.24 is about to read — its `.env` files, everything under `.qwen/`, the context
// files with their imports, the ignore files, and in a trusted repository the workspace settings,
// project agents and commands — and decides each with the rules of src/policy/repository.ts
// (docs/repository.md): every path judged as Qwen will open it (launcher/repository-files.ts), plain
// `.env` names kept out, anything that cannot be kept out refusing the launch, naming the file and
// the variable or key.
import { parse as parseDotenv } from 'dotenv';
import type { Platform } from '../src/base/platform.js';
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import {
  decideEnvFiles,
  type EnvFileContent,
  type EnvRuleContext,
  type Refusal,
} from '../src/policy/repository.js';
import type { PathSyntax } from '../src/policy/repository-path.js';
import { contextFileNames } from '../src/qwen/context-files.js';
import { type EnvFile, envFilesQwenLoads, type PathOps, QWEN_DIR } from '../src/qwen/env-files.js';
import type { JsonObject } from '../src/text/json.js';
import {
  type FilesFs,
  type JudgedFile,
  judgeContextFiles,
  judgeInitTargets,
  RepositoryPaths,
  walkJudged,
} from './repository-files.js';
import { judgeGitDirectory } from './repository-git.js';

export interface RepositoryFs extends FilesFs {
  realpathSync(path: string): string;
}

/** What the lazily loaded project part (runtime/launch-repository.js) is given. */
export interface ProjectInput {
  plan: Pick<LaunchPlan, 'cwd'>;
  rules: EnvRuleContext;
  paths: RepositoryPaths;
  /** `<repo>/.qwen/settings.json` when Qwen will read it (judged: a regular file inside the repository). */
  settingsFile: JudgedFile | undefined;
  /** `<repo>/.qwen/agents/*.md`, judged. */
  agents: JudgedFile[];
  /** `<repo>/.qwen/commands/**\/*.{md,toml}`, judged, named as Qwen names them. */
  commands: JudgedFile[];
  /** The profile's managed system settings. */
  systemSettings: () => JsonObject;
  qwenVersion: string;
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
  path: PathOps & PathSyntax & { relative(from: string, to: string): string };
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

function realOr(fs: RepositoryFs, file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    // As Qwen: an unresolvable path is compared as given.
    return file;
  }
}

/**
 * Files at the repository root Qwen opens whatever the trust: its ignore files (`.gitignore`,
 * `.qwenignore`, the default custom ones) and `.mcp.json` (read, then neutralised by mcp.allowed).
 */
const ROOT_FILES = ['.gitignore', '.qwenignore', '.agentignore', '.aiignore', '.mcp.json'];

export async function inspectRepository(input: RepositoryInput): Promise<RepositoryReport> {
  const { fs, path, plan } = input;
  const trusted = plan.repositoryTrust === 'trusted';
  // Qwen starts in the repository: its working directory is the root's real path. Every judgement is
  // anchored there, never at the launcher's own working directory.
  const root = realOr(fs, plan.cwd);
  const paths = new RepositoryPaths(root, fs, path);
  let system: JsonObject | undefined;
  const systemSettings = () => {
    system ??= input.systemSettings();
    return system;
  };

  const envFiles = envFilesQwenLoads({
    startDir: root,
    home: input.home,
    qwenHome: input.qwenHome,
    trusted,
    fs: {
      // A refused file counts as present: the launch is refused for it anyway.
      existsSync: (file) => paths.check(file).kind !== 'absent',
      realpathSync: (file) => (file === root ? root : realOr(fs, file)),
    },
    path,
  });
  const contents: EnvFileContent[] = [];
  for (const file of envFiles) {
    const read = paths.readRequired(file.path);
    if (read !== undefined) contents.push({ file, names: Object.keys(parseDotenv(read.text)) });
  }
  const rules: EnvRuleContext = {
    env: input.env,
    fromFiles: plan.environment.fromFiles,
    platform: input.platform,
  };
  const decision = decideEnvFiles(contents, rules);

  // Whatever the folder's trust, Qwen opens what is under .qwen/ (it reads settings, agents, commands
  // and skills before deciding trust, and the output-language rule regardless of it).
  const qwenDir = path.join(root, QWEN_DIR);
  const files = walkJudged(paths, qwenDir);
  for (const name of ROOT_FILES) paths.check(path.join(root, name));
  // Qwen runs git in the repository at every start, trusted or not: its git directory is judged too.
  judgeGitDirectory(paths);
  const contextNames = contextFileNames((systemSettings().context as JsonObject | undefined)?.fileName);
  judgeContextFiles({
    paths,
    home: input.home,
    qwenHome: input.qwenHome,
    names: trusted ? contextNames : [],
    trusted,
  });
  // `/init` writes the first of these names at the root whatever the trust, through a link.
  judgeInitTargets(paths, contextNames);

  if (trusted) {
    const under = (dir: string) =>
      files.filter((f) => f.file.startsWith(`${path.join(qwenDir, dir)}${path.sep}`));
    // Qwen reads no workspace settings when the repository is HOME (they would be the user's).
    const settingsPath = path.join(qwenDir, 'settings.json');
    const settingsFile =
      root === realOr(fs, input.home) ? undefined : files.find((f) => f.file === settingsPath);
    const agents = under('agents').filter(
      (f) => path.dirname(f.file) === path.join(qwenDir, 'agents') && f.file.endsWith('.md'),
    );
    const commands = under('commands').filter((f) => f.file.endsWith('.md') || f.file.endsWith('.toml'));
    if (settingsFile !== undefined || agents.length > 0 || commands.length > 0) {
      const project = await input.loadProject();
      for (const refusal of project.inspectProject({
        plan: { cwd: root },
        rules,
        paths,
        settingsFile,
        agents,
        commands,
        systemSettings,
        qwenVersion: input.qwenVersion,
      })) {
        paths.refuse(refusal);
      }
    }
  }
  const refused = [...paths.refused, ...decision.refused];
  return { trusted, envFiles, excluded: decision.excluded, allowed: decision.allowed, refused };
}
