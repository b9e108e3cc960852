// profiles/openclaw-recall/launch.json: what a managed OpenClaw session runs (docs/openclaw.md,
// "The managed session"). Render writes it, `launch-qwen --profile openclaw-recall` executes it
// (launcher/prepare-openclaw.ts), verify judges the host by it, and `plan` prints the launcher's
// decision. Paths are absolute and name the final install location. The launcher checks it with the
// validator generated from this schema (src/startup/validators/openclaw-launch-plan.ts).
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
    /**
     * OPENCLAW_CONFIG_PATH → the profile's root-owned openclaw.json; NODE_EXTRA_CA_CERTS → the
     * deployment's private CA file (`tls`), when it names one.
     */
    files: z.record(z.string(), z.string()),
  }),
  /** Credentials routed to this profile (the provider's and the model keys): name → where the launcher gets the value. */
  credentials: z.record(z.string(), credentialSourceSchema),
  /** The provider credentials among them: a rolled-back profile launches without them, as Qwen's do. */
  externalContext: z.strictObject({ credentials: z.array(z.string()) }),
});
export type OpenclawLaunchPlan = z.infer<typeof openclawLaunchPlanSchema>;
