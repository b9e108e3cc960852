// `profiles/<kind>/launch.json`: the launch plan render writes and the launcher executes. Every path
// in it is absolute and refers to the final install location (even when staged with --out).
import * as z from 'zod/mini';
import { PLATFORMS } from '../base/platform.js';

export const PROFILE_KINDS = ['on-demand', 'auto-recall', 'write'] as const;
export type ProfileKind = (typeof PROFILE_KINDS)[number];

/** The trust decisions a deployment may pin for its repository (Qwen's folder trust). */
export const REPOSITORY_TRUST = ['trusted', 'untrusted'] as const;
export type RepositoryTrust = (typeof REPOSITORY_TRUST)[number];

export function isProfileKind(value: string): value is ProfileKind {
  return (PROFILE_KINDS as readonly string[]).includes(value);
}

export const credentialSourceSchema = z.union([
  z.strictObject({ file: z.string() }),
  z.strictObject({ inherit: z.literal(true) }),
]);
export type CredentialSource = z.infer<typeof credentialSourceSchema>;

export const launchPlanSchema = z.strictObject({
  version: z.literal(1),
  profile: z.enum(PROFILE_KINDS),
  platform: z.enum(PLATFORMS),
  installDir: z.string(),
  /** First 16 hex digits of sha256(installDir): names the per-user QWEN_HOME folder. */
  installId: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  node: z.string(),
  qwenCli: z.string(),
  /** Qwen argv without external context (`--extensions none`); never contains a caller argument. */
  argv: z.array(z.string()),
  cwd: z.string(),
  /**
   * The repository's entry in the pinned trusted-folders file. Trusted: Qwen reads its workspace
   * settings, `.env` files, QWEN.md, agents and MCP servers, and the launcher checks them first;
   * untrusted: Qwen reads none of them (and discovers no MCP server at all).
   */
  repositoryTrust: z.enum(REPOSITORY_TRUST),
  environment: z.strictObject({
    PATH: z.string(),
    inherit: z.array(z.string()),
    set: z.record(z.string(), z.string()),
    /** Admin-owned files the launcher pins by variable: system settings, system defaults, trusted folders. */
    files: z.record(z.string(), z.string()),
    /** Names (or `PREFIX*`) Qwen may take from the `.env` files it loads; every other name is kept out. */
    fromFiles: z.array(z.string()),
  }),
  /** Credentials routed to this profile: name → where the launcher gets the value. */
  credentials: z.record(z.string(), credentialSourceSchema),
  /**
   * What the profile adds for external context. A rolled-back profile (manifest state) launches
   * without it: no extra argv, no provider config variable, none of these credentials.
   */
  externalContext: z.strictObject({
    argv: z.array(z.string()),
    configFile: z.string(),
    credentials: z.array(z.string()),
  }),
});
export type LaunchPlan = z.infer<typeof launchPlanSchema>;
