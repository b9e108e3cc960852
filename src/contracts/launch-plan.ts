// `profiles/<kind>/launch.json`: the launch plan render writes and the launcher executes. Every path
// in it is absolute and refers to the final install location (even when staged with --out). The zod
// schema sits in launch-plan-schema.ts, so the launcher can import these names without loading zod.
import type * as z from 'zod/mini';
import { closest } from '../text/closest.js';
import type { credentialSourceSchema, launchPlanSchema } from './launch-plan-schema.js';

export const PROFILE_KINDS = ['on-demand', 'auto-recall', 'write'] as const;
export type ProfileKind = (typeof PROFILE_KINDS)[number];

/**
 * The OpenClaw profile: the same bounded auto-recall as an OpenClaw plugin (docs/openclaw.md). Not a
 * Qwen profile: it has no Qwen settings, and render, verify and rollback handle its files on their own;
 * the launcher starts it through the same prepareLaunch() (launcher/prepare-openclaw.ts).
 */
export const OPENCLAW_PROFILE = 'openclaw-recall';
/** Every profile kind a deployment and a manifest may hold, Qwen's then OpenClaw's. */
export const ALL_PROFILE_KINDS = [...PROFILE_KINDS, OPENCLAW_PROFILE] as const;
export type AnyProfileKind = (typeof ALL_PROFILE_KINDS)[number];

/** The trust decisions a deployment may pin for its repository (Qwen's folder trust). */
export const REPOSITORY_TRUST = ['trusted', 'untrusted'] as const;
export type RepositoryTrust = (typeof REPOSITORY_TRUST)[number];

export function isProfileKind(value: string): value is ProfileKind {
  return (PROFILE_KINDS as readonly string[]).includes(value);
}

/** A Qwen profile kind or the OpenClaw one: what the launcher, plan, probe and rollback accept. */
export function isAnyProfileKind(value: string): value is AnyProfileKind {
  return (ALL_PROFILE_KINDS as readonly string[]).includes(value);
}

export type CredentialSource = z.infer<typeof credentialSourceSchema>;
export type LaunchPlan = z.infer<typeof launchPlanSchema>;

/** The refusal of a `--profile` value that is none of `kinds` (the command's), with "did you mean" when one is close. */
export function unknownProfileKind(value: string, kinds: readonly string[] = ALL_PROFILE_KINDS): string {
  const near = closest(value, kinds);
  return `unknown profile kind ${JSON.stringify(value)}${near === undefined ? '' : `; did you mean "${near}"?`} (kinds: ${kinds.join(', ')})`;
}
