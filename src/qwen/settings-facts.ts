// The settings keys of each supported Qwen version (type, merge strategy, enum), extracted from
// Qwen's own schema into policies/qwen/<version>/settings.json. A module of its own: the launcher
// needs it only for a repository with workspace settings, so its start does not pay for the table.
import settings0244 from '../../policies/qwen/0.24.4/settings.json' with { type: 'json' };
import { qwenVersionFacts, type SettingFact } from './versions.js';

const SETTINGS: Readonly<Record<string, Readonly<Record<string, SettingFact>>>> = {
  '0.24.4': settings0244.settings as Record<string, SettingFact>,
};

/** Every settings key of a supported version, dotted; undefined for any other version. */
export function qwenSettingsFacts(version: string): Readonly<Record<string, SettingFact>> | undefined {
  const facts = qwenVersionFacts(version);
  return facts === undefined ? undefined : SETTINGS[facts.settingsFile];
}
