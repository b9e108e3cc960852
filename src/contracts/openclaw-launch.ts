// profiles/openclaw-recall/launch.json: what a managed OpenClaw session runs (docs/openclaw.md,
// "The managed session"). Render writes it, verify judges the host by it (the pinned Node and
// OpenClaw), and `plan` prints it. Paths are absolute and name the final install location.
import * as z from 'zod/mini';
import { PLATFORMS } from '../base/platform.js';
import { credentialSourceSchema } from './launch-plan-schema.js';

export const openclawLaunchPlanSchema = z.strictObject({
  version: z.literal(1),
  profile: z.literal('openclaw-recall'),
  platform: z.enum(PLATFORMS),
  installDir: z.string(),
  /** First 16 hex digits of sha256(installDir): names the per-user OpenClaw state directory. */
  installId: z.string().check(z.regex(/^[0-9a-f]{16}$/)),
  /** The pinned Node 24 and OpenClaw's openclaw.mjs, run as `<node> <cli> <argv>`. */
  node: z.string(),
  cli: z.string(),
  /** The OpenClaw version the files were rendered for (policies/openclaw/versions.json). */
  openclawVersion: z.string(),
  argv: z.array(z.string()),
  cwd: z.string(),
  environment: z.strictObject({
    PATH: z.string(),
    inherit: z.array(z.string()),
    set: z.record(z.string(), z.string()),
    /** OPENCLAW_CONFIG_PATH → the profile's root-owned openclaw.json. */
    files: z.record(z.string(), z.string()),
  }),
  credentials: z.record(z.string(), credentialSourceSchema),
});
export type OpenclawLaunchPlan = z.infer<typeof openclawLaunchPlanSchema>;

/** The variable OpenClaw reads its one config file from: the launcher pins it to the profile's openclaw.json. */
export const OPENCLAW_CONFIG_VARIABLE = 'OPENCLAW_CONFIG_PATH';
