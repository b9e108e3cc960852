// `profiles/<kind>/launch.json`: the launch plan render writes and the launcher executes. Every path
// in it is absolute and refers to the final install location (even when staged with --out).
import * as z from 'zod/mini';

export const PROFILE_KINDS = ['on-demand', 'auto-recall', 'write'] as const;
export type ProfileKind = (typeof PROFILE_KINDS)[number];

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
  platform: z.enum(['posix', 'windows']),
  installDir: z.string(),
  /** First 16 hex digits of sha256(installDir): names the per-user QWEN_HOME folder. */
  installId: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  node: z.string(),
  qwenCli: z.string(),
  /** Qwen argv without external context (`--extensions none`); never contains a caller argument. */
  argv: z.array(z.string()),
  cwd: z.string(),
  environment: z.strictObject({
    PATH: z.string(),
    inherit: z.array(z.string()),
    set: z.record(z.string(), z.string()),
    /** Admin-owned files the launcher pins by variable: system settings, system defaults, trusted folders. */
    files: z.record(z.string(), z.string()),
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
