// The zod schema of `profiles/<kind>/launch.json` (launch-plan.ts has its names and types): render
// and verify parse with it; the launcher checks the JSON Schema generated from it (schema/launch-plan.schema.json).
import * as z from 'zod/mini';
import { PLATFORMS } from '../base/platform.js';
import { PROFILE_KINDS, REPOSITORY_TRUST } from './launch-plan.js';

export const credentialSourceSchema = z.union([
  z.strictObject({ file: z.string() }),
  z.strictObject({ inherit: z.literal(true) }),
]);

export const launchPlanSchema = z.strictObject({
  version: z.literal(1),
  profile: z.enum(PROFILE_KINDS),
  platform: z.enum(PLATFORMS),
  installDir: z.string(),
  /** First 16 hex digits of sha256(installDir): names the per-user QWEN_HOME folder. */
  installId: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  node: z.string(),
  qwenCli: z.string(),
  /**
   * The supported Qwen versions whose settings tables lack a key of this profile's system settings
   * (render computes it; usually none): Qwen ignores a key it does not know, so the launcher refuses
   * to start them. Absent in a plan rendered before the field existed: not checked.
   */
  qwenVersionsMissingSettings: z.optional(z.array(z.string())),
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
  /**
   * deployment.json `developers`, sorted: who the deployment is for. verify checks the credential
   * files against it; absent when the deployment names none (or was rendered before the field).
   */
  developers: z.optional(z.strictObject({ users: z.array(z.string()), groups: z.array(z.string()) })),
  /**
   * The credential broker this profile's session talks to (deployment.json `broker`): the launcher
   * reads no credential (`credentials` is empty), sets `keyVariables` to the public `key`, and before
   * starting Qwen checks that each listener's port is held by root or `user` and answers its health
   * request. The provider's listener (named after the profile) only while the profile is active.
   */
  broker: z.optional(
    z.strictObject({
      user: z.string(),
      host: z.literal('127.0.0.1'),
      key: z.string(),
      listeners: z.array(z.strictObject({ name: z.string(), port: z.int().check(z.gte(1), z.lte(65_535)) })),
      keyVariables: z.array(z.string()),
    }),
  ),
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
