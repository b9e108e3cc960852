// The deployment manifest (`deployment.json`, the administrator's only input) as a zod schema: the
// one truth for its types, its validation and the published JSON Schema
// (schema/deployment.schema.json). Provider blocks reuse the runtime config's `providerSchema`, so a
// provider that renders is a provider the runtimes accept. Rules that need more than one field
// (paths, credential routing, policies, the settings block) live in validate.ts.
import * as z from 'zod';
import { AUTO_RECALL_TIMEOUT_MS, MCP_TIMEOUT_MS, PROVIDER_TIMEOUT_MS } from '../../base/limits.js';
import { PLATFORMS } from '../../base/platform.js';
import { providerSchema } from '../../config/schema.js';
import { DEFAULT_BROKER_PORTS, DEFAULT_BROKER_USER } from '../../contracts/broker.js';
import { ALL_PROFILE_KINDS, REPOSITORY_TRUST } from '../../contracts/launch-plan.js';
import { DEFAULT_GUARD_MODES } from '../../contracts/names.js';
import { qwenSettingsJsonSchema } from '../../qwen/settings-json-schema.js';
import { DEFAULT_QWEN_VERSION } from '../../qwen/versions.js';

/** The provider timeout of a search made before a prompt (config version 2's `autoRecall.timeoutMs`). */
function recallTimeoutMs(searcher: string) {
  return z
    .int()
    .min(1)
    .max(AUTO_RECALL_TIMEOUT_MS.max)
    .default(AUTO_RECALL_TIMEOUT_MS.default)
    .describe(`autoRecall.timeoutMs: provider timeout of ${searcher}, at most ${AUTO_RECALL_TIMEOUT_MS.max}`);
}

/** Qwen permission modes the approval guard can turn back into confirmations. */
export const GUARD_MODES = ['auto_edit', 'auto', 'yolo'] as const;

const absolutePath = (what: string) =>
  z
    .string()
    .describe(`${what}: an absolute path for the deployment's platform, without \`$\` or control characters`);

const repositoryTrust = (fallback: 'trusted' | 'untrusted') =>
  z
    .enum(REPOSITORY_TRUST)
    .default(fallback)
    .describe(
      'How Qwen treats repositoryRoot (its folder trust, pinned by the administrator). "trusted": Qwen reads the repository\'s QWEN.md, .env, .qwen/settings.json, agents and MCP servers, and the launcher refuses anything there that could change the managed session; "untrusted": Qwen ignores all of them (no QWEN.md, no MCP servers, no privileged approval modes)',
    );

const v1ProfileSchema = z
  .strictObject({
    provider: providerSchema,
    // Qwen 0.24 discovers MCP servers only in a trusted folder: these profiles need one (validate.ts).
    repositoryTrust: repositoryTrust('trusted'),
    // The provider timeout must end before Qwen gives up on the MCP call (8000 ms).
    timeoutMs: z
      .int()
      .min(1)
      .max(MCP_TIMEOUT_MS - 1)
      .default(PROVIDER_TIMEOUT_MS.default)
      .describe(`Provider timeout in milliseconds, below the MCP call timeout of ${MCP_TIMEOUT_MS}`),
  })
  .describe('A profile whose Qwen gets the external-context MCP server (provider config version 1)');

const autoRecallProfileSchema = z
  .strictObject({
    provider: providerSchema,
    repositoryTrust: repositoryTrust('trusted'),
    timeoutMs: recallTimeoutMs('the prompt hook'),
  })
  .describe('The auto-recall profile: a UserPromptSubmit hook searches once per prompt (config version 2)');

/** The openclaw-recall profile: the auto-recall provider block and timeout, for the OpenClaw plugin. */
const openclawRecallProfileSchema = z
  .strictObject({
    provider: providerSchema,
    timeoutMs: recallTimeoutMs("the OpenClaw plugin's search"),
  })
  .describe(
    'The openclaw-recall profile: an OpenClaw plugin searches once per user turn (config version 2, repositoryRoot as auto-recall); needs the top-level "openclaw" block',
  );

const credentialProfiles = z
  .array(z.enum(ALL_PROFILE_KINDS))
  .min(1)
  .optional()
  .describe(
    'Profiles that receive this credential; default: the profiles whose provider names it (required for any other credential)',
  );

export const credentialSchema = z.union([
  z.strictObject({
    file: absolutePath('File holding the secret, read by the launcher at start (trailing newline stripped)'),
    profiles: credentialProfiles,
  }),
  z.strictObject({
    inherit: z.literal(true).describe("Take the value from the caller's environment"),
    profiles: credentialProfiles,
  }),
]);

const accountNames = (what: string) =>
  z
    .array(z.string().min(1))
    .default([])
    .describe(`${what}: names as the host's user database knows them (POSIX: e.g. "alice")`);

/**
 * Who the deployment is for: the developers who launch Qwen. verify checks that each credential file
 * is readable by them and by no one else; the credential broker's `allow` defaults to them.
 */
export const developersSchema = z
  .strictObject({
    users: accountNames('User accounts that launch Qwen'),
    groups: accountNames('Groups whose members launch Qwen'),
  })
  .refine((d) => d.users.length + d.groups.length > 0, {
    message: 'names no user and no group',
  })
  .describe(
    'The developers this deployment is for (users and groups): verify checks that every credential file is readable by them and by no one else',
  );

const brokerPort = (listener: string, port: number) =>
  z
    .int()
    .min(1)
    .max(65_535)
    .optional()
    .describe(
      `Loopback port of the ${listener} listener (default ${port}: below 1024, so no developer can take it; never one of the Fetch standard's blocked ports, which Qwen's model client refuses)`,
    );

/**
 * The credential broker: with it, every credential of the deployment is held by one local service
 * running as its own system user, and nothing secret is in any file, environment or process of the
 * developers (docs/admin.md, "The credential broker"). POSIX (Linux) only.
 */
export const brokerSchema = z
  .strictObject({
    user: z
      .string()
      .default(DEFAULT_BROKER_USER)
      .describe(
        `The system user the broker runs as (default ${DEFAULT_BROKER_USER}): no login shell, not root, not a developer; created by the Debian package's sysusers.d entry or the Ansible role`,
      ),
    allow: z
      .strictObject({
        users: z.array(z.string().min(1)).default([]).describe('Accounts that may use the broker'),
        groups: z.array(z.string().min(1)).default([]).describe('Groups whose members may use the broker'),
      })
      .optional()
      .describe('Who may use the broker (the kernel says who calls); default: "developers"'),
    ports: z
      .strictObject({
        model: brokerPort('model', DEFAULT_BROKER_PORTS.model),
        'on-demand': brokerPort('on-demand provider', DEFAULT_BROKER_PORTS['on-demand']),
        'auto-recall': brokerPort('auto-recall provider', DEFAULT_BROKER_PORTS['auto-recall']),
        write: brokerPort('write provider', DEFAULT_BROKER_PORTS.write),
      })
      .default({})
      .describe('Loopback ports of the listeners: one for the model, one per deployed profile'),
  })
  .describe(
    "Hold every credential in a local broker (its own system user) instead of the developers' processes; Linux only",
  );

export const deploymentSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Editor hint; ignored by qwen-managed'),
    version: z.literal(1).describe('Format version of this file: 1'),
    platform: z.enum(PLATFORMS).describe('The platform every path is written for'),
    installDir: absolutePath('Where the install tree lives'),
    node: absolutePath('The pinned Node executable (Qwen 0.24.4 needs Node 22)'),
    qwenCli: absolutePath("Qwen's cli.js (never cli-entry.js, which relaunches through the self-updater)"),
    repositoryRoot: absolutePath('The repository Qwen starts in (and the auto-recall repositoryRoot)'),
    environment: z
      .strictObject({
        PATH: z.string().min(1).describe('The pinned PATH: absolute entries only'),
        inherit: z
          .array(z.string())
          .default([])
          .describe('Variable names copied from the caller when present (policy-forbidden names refused)'),
        set: z
          .record(z.string(), z.string())
          .default({})
          .describe('Variables set to fixed values (policy-forbidden names refused)'),
        fromFiles: z
          .array(z.string())
          .default([])
          .describe(
            "Names (or PREFIX* patterns) Qwen may take from the .env files it loads (the repository's .env or .qwen/.env, ~/.env, ~/.qwen/.env); every other name found there is kept out, or refuses the launch where it cannot be kept out (policy-forbidden names refused)",
          ),
      })
      .describe('The environment the launcher gives Qwen: nothing else from the caller passes'),
    developers: developersSchema.optional(),
    credentials: z
      .record(z.string(), credentialSchema)
      .default({})
      .describe('Where the launcher gets each secret variable: {"file": …} or {"inherit": true}'),
    broker: brokerSchema.optional(),
    settings: z
      .record(z.string(), z.unknown())
      // Validated against the Qwen version's own settings facts (settings.ts), with "did you mean"
      // fixes; the published schema carries those keys so editors complete them.
      .meta({
        ...qwenSettingsJsonSchema(DEFAULT_QWEN_VERSION, {
          $version: { type: 'number', description: "Qwen's settings format version (the baseline's 4)" },
        }),
      })
      .optional()
      .describe(
        `Extra managed system settings merged into every profile (typically model and security.auth), checked against Qwen Code ${DEFAULT_QWEN_VERSION}'s settings; baseline values cannot change`,
      ),
    tls: z
      .strictObject({
        extraCaCertificates: absolutePath(
          'PEM file of the private certificate authorities Qwen, the hooks and the MCP server trust besides the public ones (NODE_EXTRA_CA_CERTS); kept where it is, outside installDir, owned by root or the administrator',
        ),
      })
      .optional()
      .describe(
        'Trust a private certificate authority (an internal provider, a TLS-inspecting proxy); absent: only the public ones',
      ),
    openclaw: z
      .strictObject({
        node: absolutePath(
          'The Node 24 executable OpenClaw runs on (OpenClaw 2026.9.6 needs >= 24.16, < 25)',
        ),
        cli: absolutePath("OpenClaw's openclaw.mjs, inside the openclaw package of a supported version"),
        config: z
          .record(z.string(), z.unknown())
          .default({})
          .describe(
            'Your own OpenClaw configuration (models, agents, tools, …) as openclaw.json holds it; render merges the managed plugin keys into it and refuses a config that sets them ("plugins", agents.defaults.workspace, "$include", env.shellEnv)',
          ),
      })
      .optional()
      .describe('OpenClaw for the openclaw-recall profile: its pinned Node, CLI and your configuration'),
    approvalGuard: z
      .union([
        z.literal(false),
        z.strictObject({
          modes: z
            .array(z.enum(GUARD_MODES))
            .min(1)
            .describe('Permission modes in which every tool call asks'),
        }),
      ])
      .default({ modes: [...DEFAULT_GUARD_MODES] })
      .describe('A PreToolUse hook that asks before every tool call in the listed modes; false turns it off'),
    profiles: z
      .strictObject({
        'on-demand': v1ProfileSchema.optional(),
        'auto-recall': autoRecallProfileSchema.optional(),
        write: v1ProfileSchema.optional().describe('Requires a Mem0 provider whose preset defines a write'),
        'openclaw-recall': openclawRecallProfileSchema.optional(),
      })
      .refine((profiles) => Object.keys(profiles).length > 0, { message: 'at least one profile is required' })
      .describe('The deployed profiles (each a separate, mutually exclusive Qwen configuration)'),
  })
  .describe('qwen-managed deployment manifest');

export type Deployment = z.output<typeof deploymentSchema>;
export type DeploymentInput = z.input<typeof deploymentSchema>;
export type Developers = z.output<typeof developersSchema>;
export type BrokerBlock = z.output<typeof brokerSchema>;
export type CredentialEntry = z.output<typeof credentialSchema>;
export type GuardMode = (typeof GUARD_MODES)[number];
export type ProfileSpec = NonNullable<Deployment['profiles'][keyof Deployment['profiles']]>;
export type OpenclawBlock = NonNullable<Deployment['openclaw']>;
