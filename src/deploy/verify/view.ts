// What the checks look at: the loaded tree, its manifest, and per profile the parsed files and the
// launch plan (the pinned truth that node, installDir and platform are checked against).

import {
  type LaunchPlan,
  OPENCLAW_PROFILE,
  PROFILE_KINDS,
  type ProfileKind,
} from '../../contracts/launch-plan.js';
import { launchPlanSchema } from '../../contracts/launch-plan-schema.js';
import { PROFILE_FILES, profileRel } from '../../contracts/layout.js';
import { parseJsonc } from '../../text/jsonc.js';
import type { InstallTree } from '../tree.js';

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string } | undefined;

export interface ProfileView {
  kind: ProfileKind;
  state: 'active' | 'rolled-back';
  /** The parsed launch.json when it matches the schema and names this profile. */
  plan: LaunchPlan | undefined;
  /** Parsed JSON of a profile file (undefined when the file is absent). */
  json(file: string): Parsed;
  text(file: string): string | undefined;
  has(file: string): boolean;
}

/** The openclaw-recall profile, when the manifest lists it (it has no Qwen files). */
export interface OpenclawView {
  tree: InstallTree;
  state: 'active' | 'rolled-back';
  json(file: string): Parsed;
  text(file: string): string | undefined;
}

export interface TreeView {
  tree: InstallTree;
  profiles: ProfileView[];
  openclaw?: OpenclawView;
  /** Profile directories present in the tree but not in the manifest. */
  strayProfiles: string[];
}

function parseText(text: string): Parsed {
  try {
    // Strict JSON: rendered files are plain JSON (JSONC is accepted only for hand-made settings).
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    try {
      parseJsonc(text);
    } catch (jsoncError) {
      return { ok: false, error: (jsoncError as Error).message };
    }
    return { ok: false, error: (error as Error).message };
  }
}

export function buildView(tree: InstallTree): TreeView {
  const profiles: ProfileView[] = [];
  const manifest = tree.manifest;
  const dirs = new Set(
    [...tree.files.keys()].filter((rel) => rel.startsWith('profiles/')).map((rel) => rel.split('/')[1]!),
  );
  for (const kind of PROFILE_KINDS) {
    const entry = manifest?.profiles[kind];
    if (entry === undefined) continue;
    const text = (file: string) => tree.files.get(profileRel(kind, file))?.bytes.toString('utf8');
    const cache = new Map<string, Parsed>();
    const json = (file: string): Parsed => {
      if (!cache.has(file)) {
        const t = text(file);
        cache.set(file, t === undefined ? undefined : parseText(t));
      }
      return cache.get(file);
    };
    const launch = json(PROFILE_FILES.launchPlan);
    let plan: LaunchPlan | undefined;
    if (launch?.ok === true) {
      const parsed = launchPlanSchema.safeParse(launch.value);
      if (parsed.success && parsed.data.profile === kind) plan = parsed.data;
    }
    profiles.push({
      kind,
      state: entry.state,
      plan,
      json,
      text,
      has: (file) => tree.files.has(profileRel(kind, file)),
    });
  }
  const known = new Set(profiles.map((p) => p.kind as string));
  let openclaw: OpenclawView | undefined;
  const openclawEntry = manifest?.profiles[OPENCLAW_PROFILE];
  if (openclawEntry !== undefined) {
    known.add(OPENCLAW_PROFILE);
    const text = (file: string) => tree.files.get(profileRel(OPENCLAW_PROFILE, file))?.bytes.toString('utf8');
    const json = (file: string): Parsed => {
      const t = text(file);
      return t === undefined ? undefined : parseText(t);
    };
    openclaw = { tree, state: openclawEntry.state, json, text };
  }
  return {
    tree,
    profiles,
    ...(openclaw === undefined ? {} : { openclaw }),
    strayProfiles: [...dirs].filter((d) => !known.has(d)).sort(),
  };
}
