// Rules of deployment.json that span fields: pinned paths, the environment and argument policies,
// credential routing, provider/profile compatibility and the settings block. Each problem names the
// key, the bad value and the fix. Pure: nothing here touches the file system.
import * as path from 'node:path';
import { ConfigurationError } from '../../base/errors.js';
import { parseRuntimeConfig } from '../../config/load.js';
import { providerCanWrite } from '../../config/load-core.js';
import { CREDENTIAL_NAME } from '../../config/names.js';
import type { ProviderConfig } from '../../config/schema.js';
import { PinnedLayout, usesMcp } from '../../contracts/layout.js';
import { MEM0_PRESETS, SCOPE_KEYS } from '../../contracts/mem0-presets.js';
import { RUNTIME_FILES } from '../../contracts/runtime-files.js';
import { forbiddenReason, sameEnvName } from '../../policy/environment-names.js';
import { ENVIRONMENT_POLICY } from '../../policy/policies.js';
import { renderJson } from '../json.js';
import { POSIX_ACCOUNT, WINDOWS_ACCOUNT } from './account-names.js';
import { brokerProblems } from './broker.js';
import { routeCredentials } from './credential-routes.js';
import { deployedProfileKinds } from './kinds.js';
import { openclawDeploymentProblems } from './openclaw.js';
import { exampleFor, pinnedPathListProblems, pinnedPathProblems } from './paths.js';
import { forbiddenVariableFix, type Problem, problem } from './problems.js';
import { providerConfigFor, providerConfigVersion } from './provider-config.js';
import type { Deployment } from './schema.js';
import { checkSettingsBlock, settingsFactsProblems } from './settings.js';
import { posixShimPathProblem, windowsShimPathProblem } from './shim-paths.js';

function nameProblems(keyPath: (string | number)[], name: string, deployment: Deployment): Problem[] {
  if (!CREDENTIAL_NAME.test(name)) {
    return [
      problem(
        keyPath,
        name,
        'is not an environment variable name',
        'use a name matching ^[A-Za-z_][A-Za-z0-9_]*$',
      ),
    ];
  }
  const why = forbiddenReason(name, ENVIRONMENT_POLICY, deployment.platform);
  if (why !== undefined) {
    const fix = forbiddenVariableFix(name, deployment.platform, `remove ${name}`);
    return [problem(keyPath, name, `is forbidden by the environment policy: ${why}`, fix)];
  }
  return [];
}

/**
 * An `environment.fromFiles` entry: a name, or `PREFIX*`. A pattern that could match a name the
 * environment policy forbids is refused as a whole: `NODE_*` would let a repository's `.qwen/.env`
 * set NODE_OPTIONS.
 */
function fromFilesProblems(keyPath: (string | number)[], pattern: string, deployment: Deployment): Problem[] {
  if (!pattern.endsWith('*')) return nameProblems(keyPath, pattern, deployment);
  const prefix = pattern.slice(0, -1);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    return [
      problem(
        keyPath,
        pattern,
        'is not a name or a PREFIX* pattern',
        'use e.g. "APP_*" (a name prefix, then one *)',
      ),
    ];
  }
  const fold = (s: string) => (deployment.platform === 'windows' ? s.toUpperCase() : s);
  const overlaps = [
    ...ENVIRONMENT_POLICY.forbidden.names,
    ...Object.keys(ENVIRONMENT_POLICY.forced),
    ...ENVIRONMENT_POLICY.pinned,
  ].filter((name) => fold(name).startsWith(fold(prefix)));
  overlaps.push(
    ...ENVIRONMENT_POLICY.forbidden.prefixes.filter(
      (forbidden) => fold(forbidden).startsWith(fold(prefix)) || fold(prefix).startsWith(fold(forbidden)),
    ),
  );
  if (overlaps.length === 0) return [];
  return [
    problem(
      keyPath,
      pattern,
      `matches names the environment policy forbids (${overlaps.slice(0, 3).join(', ')}${overlaps.length > 3 ? ', …' : ''})`,
      'list the names you need one by one, or use a longer prefix',
    ),
  ];
}

function environmentProblems(deployment: Deployment): Problem[] {
  const { platform, environment } = deployment;
  const problems = pinnedPathListProblems(['environment', 'PATH'], environment.PATH, platform);
  environment.inherit.forEach((name, i) => {
    problems.push(...nameProblems(['environment', 'inherit', i], name, deployment));
    if (environment.inherit.findIndex((other) => sameEnvName(other, name, platform)) !== i) {
      problems.push(problem(['environment', 'inherit', i], name, 'is listed twice', 'keep one entry'));
    }
  });
  for (const [name, value] of Object.entries(environment.set)) {
    problems.push(...nameProblems(['environment', 'set', name], name, deployment));
    if (environment.inherit.some((other) => sameEnvName(other, name, platform))) {
      problems.push(
        problem(
          ['environment', 'set', name],
          value,
          'is also inherited',
          `remove ${name} from "inherit" or from "set"`,
        ),
      );
    }
    if (value.includes('\u0000')) {
      problems.push(problem(['environment', 'set', name], value, 'contains NUL', 'remove the NUL character'));
    }
  }
  environment.fromFiles.forEach((pattern, i) => {
    problems.push(...fromFilesProblems(['environment', 'fromFiles', i], pattern, deployment));
    if (environment.fromFiles.indexOf(pattern) !== i) {
      problems.push(problem(['environment', 'fromFiles', i], pattern, 'is listed twice', 'keep one entry'));
    }
  });
  for (const name of Object.keys(deployment.credentials)) {
    problems.push(...nameProblems(['credentials', name], name, deployment));
    const elsewhere =
      environment.inherit.some((other) => sameEnvName(other, name, platform)) ||
      Object.keys(environment.set).some((other) => sameEnvName(other, name, platform));
    if (elsewhere) {
      // One route per secret: an inherited copy would survive a rollback that drops the credential.
      problems.push(
        problem(
          ['credentials', name],
          name,
          'is also listed under "environment"',
          `remove ${name} from "environment.inherit"/"environment.set"`,
        ),
      );
    }
  }
  return problems;
}

const CREDENTIAL_EXAMPLE = {
  posix: '/etc/qwen-managed/context.token',
  windows: 'C:\\ProgramData\\qwen-managed\\context.token',
} as const;

const CA_EXAMPLE = {
  posix: '/etc/qwen-managed/ca.pem',
  windows: 'C:\\ProgramData\\qwen-managed\\ca.pem',
} as const;

function extraCaProblems(deployment: Deployment, file: string): Problem[] {
  const keyPath = ['tls', 'extraCaCertificates'];
  const found = pinnedPathProblems(keyPath, file, deployment.platform);
  if (found.length > 0) return found;
  return insideInstallProblems(deployment, keyPath, file, 'the CA file', CA_EXAMPLE[deployment.platform]);
}

/**
 * A pin outside the tree must stay outside it: the launcher accepts a pin inside only as a file
 * manifest.json lists, render lists only its own, and the next render moves every other file there to
 * backups/ (a credential file, node or the repository would vanish from under the launcher).
 */
export function insideInstallProblems(
  deployment: Pick<Deployment, 'platform' | 'installDir'>,
  keyPath: (string | number)[],
  value: string,
  what: string,
  example?: string,
): Problem[] {
  if (!new PinnedLayout(deployment.platform, deployment.installDir).contains(value)) return [];
  return [
    problem(
      keyPath,
      value,
      `is inside installDir ${JSON.stringify(deployment.installDir)}, which render owns: the next render would move it to backups/`,
      `keep ${what} outside the install tree${example === undefined ? '' : `, e.g. ${example}`}`,
    ),
  ];
}

/**
 * installDir below repositoryRoot: whoever writes the repository — the developers, a checkout or pull
 * of it, its authors — could write the hooks, the managed settings and the launcher Qwen runs as the
 * developer (the tree is trusted, the repository is not). Said once the two paths are well formed.
 */
function installInRepositoryProblems(deployment: Deployment, found: readonly Problem[]): Problem[] {
  const { platform, installDir, repositoryRoot } = deployment;
  if (found.some((p) => p.key === 'installDir' || p.key === 'repositoryRoot')) return [];
  if (!new PinnedLayout(platform, repositoryRoot).contains(installDir)) return [];
  return [
    problem(
      ['installDir'],
      installDir,
      `is inside repositoryRoot ${JSON.stringify(repositoryRoot)}, the repository developers open: whoever writes there (a developer, a checkout or pull of it) could replace the hooks and the managed settings`,
      `render into a directory outside the repository that only root can write, e.g. ${exampleFor(['installDir'], platform)}`,
    ),
  ];
}

function pathProblems(deployment: Deployment): Problem[] {
  const { platform } = deployment;
  // A pin in normal form that lies inside installDir is refused too (insideInstallProblems).
  const pin = (
    keyPath: (string | number)[],
    value: string,
    what: string,
    options: { notRoot?: true; example?: string } = {},
  ) => {
    const found = pinnedPathProblems(keyPath, value, platform, options);
    return found.length > 0 || pinnedPathProblems(['installDir'], deployment.installDir, platform).length > 0
      ? found
      : insideInstallProblems(deployment, keyPath, value, what, options.example);
  };
  const problems = [
    ...pinnedPathProblems(['installDir'], deployment.installDir, platform, { notRoot: true }),
    ...pin(['node'], deployment.node, 'Node'),
    ...pin(['qwenCli'], deployment.qwenCli, 'the Qwen package'),
    ...pin(['repositoryRoot'], deployment.repositoryRoot, 'the repository', { notRoot: true }),
  ];
  problems.push(...installInRepositoryProblems(deployment, problems));
  const flavour = platform === 'windows' ? path.win32 : path.posix;
  if (flavour.basename(deployment.qwenCli) === 'cli-entry.js') {
    problems.push(
      problem(
        ['qwenCli'],
        deployment.qwenCli,
        "is Qwen's self-updating wrapper, which relaunches itself",
        'point at cli.js in the same package directory',
      ),
    );
  }
  for (const [name, entry] of Object.entries(deployment.credentials)) {
    if ('file' in entry)
      problems.push(
        ...pin(['credentials', name, 'file'], entry.file, 'the credential file', {
          example: CREDENTIAL_EXAMPLE[platform],
        }),
      );
  }
  if (deployment.tls !== undefined)
    problems.push(...extraCaProblems(deployment, deployment.tls.extraCaCertificates));
  if (problems.length === 0) {
    // The bin/ shims carry node and the launcher path too; their rules (src/deploy/render/shims.ts) are stricter on Windows.
    const shimProblem = platform === 'windows' ? windowsShimPathProblem : posixShimPathProblem;
    const launcherJs = new PinnedLayout(platform, deployment.installDir).runtime(RUNTIME_FILES.launcherStart);
    for (const [key, value] of [
      ['node', deployment.node],
      ['installDir', launcherJs],
    ] as const) {
      const found = shimProblem(value);
      if (found !== undefined) {
        problems.push(
          problem(
            [key],
            deployment[key],
            `cannot go into the launcher shims: ${JSON.stringify(value)} ${found}`,
            'use a plain ASCII path',
          ),
        );
      }
    }
  }
  return problems;
}

const CONFIG_FIXES: Partial<Record<ConfigurationError['code'], string>> = {
  'scope-invalid':
    'give exactly the scope keys the preset requires and none it does not use (provider-config docs)',
  'write-unsupported':
    'use "mem0-platform-v3", "dataworks-bff-memory-v1" or a "mem0" preset that defines a write',
  'schema-invalid': 'fix the provider block (see schema/deployment.schema.json)',
};

/**
 * A Mem0 scope that does not fit its preset, as one problem naming what the preset requires and
 * allows and which keys are missing or extra (a key the preset does not use would be dropped on the
 * wire, so the search would not be scoped as written).
 */
export function mem0ScopeProblem(
  providerKey: readonly (string | number)[],
  provider: { provider: ProviderConfig } | undefined,
): Problem[] {
  const p = provider?.provider;
  if (p?.type !== 'mem0') return [];
  const preset = MEM0_PRESETS[p.preset];
  const given = SCOPE_KEYS.filter((key) => p.scope[key] !== undefined);
  const missing = preset.required.filter((key) => !given.includes(key));
  const extra = given.filter((key) => !preset.required.includes(key) && !preset.optional.includes(key));
  if (missing.length === 0 && extra.length === 0) return [];
  const list = (keys: readonly string[]) => (keys.length === 0 ? 'none' : keys.join(', '));
  const wrong = [
    missing.length > 0 ? `missing ${missing.join(', ')}` : '',
    extra.length > 0 ? `${extra.join(', ')} not used by this preset` : '',
  ].filter((s) => s !== '');
  const example = Object.fromEntries(
    preset.required
      .map((key) => [key, p.scope[key] ?? `<${key}>`])
      .concat(preset.optional.filter((key) => p.scope[key] !== undefined).map((key) => [key, p.scope[key]!])),
  );
  return [
    problem(
      [...providerKey, 'scope'],
      p.scope,
      `does not match preset "${p.preset}" (requires ${list(preset.required)}; optional ${list(preset.optional)}): ${wrong.join('; ')}`,
      `write "scope": ${JSON.stringify(example)}`,
    ),
  ];
}

function profileProblems(deployment: Deployment): Problem[] {
  const problems: Problem[] = [];
  for (const kind of deployedProfileKinds(deployment)) {
    const profile = deployment.profiles[kind]!;
    if (
      kind !== 'openclaw-recall' &&
      usesMcp(kind) &&
      'repositoryTrust' in profile &&
      profile.repositoryTrust === 'untrusted'
    ) {
      problems.push(
        problem(
          ['profiles', kind, 'repositoryTrust'],
          'untrusted',
          'leaves the profile without its tools: Qwen 0.24 discovers no MCP server in an untrusted folder',
          'use "trusted" (the launcher then checks the repository before every start), or the auto-recall profile',
        ),
      );
    }
    if (kind === 'write' && !providerCanWrite(profile.provider)) {
      problems.push(
        problem(
          ['profiles', 'write', 'provider', 'type'],
          profile.provider.type,
          'cannot store memories: the write profile needs a provider that writes (a Mem0 preset with a write, or the DataWorks BFF)',
          'use "mem0-platform-v3", "dataworks-bff-memory-v1" or a "mem0" preset with writes',
        ),
      );
      continue;
    }
    const scope = mem0ScopeProblem(['profiles', kind, 'provider'], profile);
    if (scope.length > 0) {
      problems.push(...scope);
      continue;
    }
    // The rendered runtime config must load in the runtimes: the runtime parser is the judge.
    try {
      parseRuntimeConfig(renderJson(providerConfigFor(kind, deployment)), providerConfigVersion(kind));
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      const keyPath = error.keyPath ?? [];
      problems.push(
        problem(
          ['profiles', kind, ...keyPath],
          undefined,
          error.message.replace(/\.$/, ''),
          CONFIG_FIXES[error.code] ?? 'fix the profile block',
        ),
      );
    }
  }
  return problems;
}

function guardProblems(deployment: Deployment): Problem[] {
  const guard = deployment.approvalGuard;
  if (guard === false) return [];
  return guard.modes.flatMap((mode, i) =>
    guard.modes.indexOf(mode) === i
      ? []
      : [problem(['approvalGuard', 'modes', i], mode, 'is listed twice', 'keep one entry')],
  );
}

function developersProblems(deployment: Deployment): Problem[] {
  const developers = deployment.developers;
  if (developers === undefined) return [];
  const pattern = deployment.platform === 'windows' ? WINDOWS_ACCOUNT : POSIX_ACCOUNT;
  const problems: Problem[] = [];
  for (const list of ['users', 'groups'] as const) {
    developers[list].forEach((name, i) => {
      const keyPath = ['developers', list, i];
      if (!pattern.test(name)) {
        const fix =
          deployment.platform === 'windows'
            ? 'write the account as NAME or DOMAIN\\NAME'
            : 'write the account name as `id -un` prints it (letters, digits, _ . -, at most 32)';
        problems.push(problem(keyPath, name, `is not a ${deployment.platform} account name`, fix));
      } else if (developers[list].indexOf(name) !== i) {
        problems.push(problem(keyPath, name, 'is listed twice', 'keep one entry'));
      }
    });
  }
  return problems;
}

/** Every problem with a schema-valid deployment, in a stable order. */
export function validateDeployment(deployment: Deployment): Problem[] {
  return [
    ...pathProblems(deployment),
    ...environmentProblems(deployment),
    ...developersProblems(deployment),
    ...brokerProblems(deployment),
    ...routeCredentials(deployment).problems,
    ...profileProblems(deployment),
    ...(deployment.settings === undefined
      ? []
      : [
          ...checkSettingsBlock(deployment.settings, deployment.platform),
          ...settingsFactsProblems(deployment.settings),
        ]),
    ...guardProblems(deployment),
    ...openclawDeploymentProblems(deployment, (keyPath, value) => {
      const found = pinnedPathProblems(keyPath, value, deployment.platform);
      return found.length > 0
        ? found
        : insideInstallProblems(deployment, keyPath, value, 'OpenClaw and its Node');
    }),
  ];
}
