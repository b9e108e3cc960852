// The settings keys of each supported Qwen version (type, merge strategy, enum), extracted from
// Qwen's own schema into policies/qwen/<version>/settings.json. A module of its own: the launcher
// needs it only for a repository with workspace settings, so its start does not pay for the table.
import settings0240 from '../../policies/qwen/0.24.0/settings.json' with { type: 'json' };
import settings0242 from '../../policies/qwen/0.24.2/settings.json' with { type: 'json' };
import settings0244 from '../../policies/qwen/0.24.4/settings.json' with { type: 'json' };
import { qwenVersionFacts, type SettingFact } from './versions.js';

type SettingsTable = Readonly<Record<string, SettingFact>>;

/** policies/qwen/<dir>/settings.json by <dir> (versions.json `settings`; 0.24.3 shares 0.24.2's, identical). */
export const SETTINGS_TABLES: Readonly<Record<string, SettingsTable>> = {
  '0.24.0': settings0240.settings as SettingsTable,
  '0.24.2': settings0242.settings as SettingsTable,
  '0.24.4': settings0244.settings as SettingsTable,
};

/** Every settings key of a supported version, dotted; undefined for any other version. */
export function qwenSettingsFacts(version: string): SettingsTable | undefined {
  const facts = qwenVersionFacts(version);
  return facts === undefined ? undefined : SETTINGS_TABLES[facts.settingsFile];
}
