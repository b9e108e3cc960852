// Credential routing (docs/admin.md, "deployment.json": `credentials`): each profile receives only the credentials
// routed to it. By default a credential goes to the profiles whose provider names it; any other
// credential (a model key) must list its `profiles`, otherwise it is refused as unused.
import { credentialVariable } from '../../config/names.js';
import type { AnyProfileKind, CredentialSource } from '../../contracts/launch-plan.js';
import { deployedProfileKinds } from './kinds.js';
import type { Problem } from './problems.js';
import { problem } from './problems.js';
import type { Deployment } from './schema.js';

export interface ProfileCredentials {
  /** Every credential the launcher delivers to this profile, by variable name (sorted). */
  all: Record<string, CredentialSource>;
  /** The provider's credential: dropped when the profile is rolled back. */
  external: string[];
}

export function sourceOf(entry: Deployment['credentials'][string]): CredentialSource {
  return 'file' in entry ? { file: entry.file } : { inherit: true };
}

export function routeCredentials(deployment: Deployment): {
  routes: Map<AnyProfileKind, ProfileCredentials>;
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const kinds = deployedProfileKinds(deployment);
  const providerVar = new Map<AnyProfileKind, string>();
  for (const kind of kinds) providerVar.set(kind, credentialVariable(deployment.profiles[kind]!.provider));

  const routes = new Map<AnyProfileKind, ProfileCredentials>();
  for (const kind of kinds) routes.set(kind, { all: {}, external: [providerVar.get(kind)!] });

  for (const name of Object.keys(deployment.credentials).sort()) {
    const entry = deployment.credentials[name]!;
    const naming = kinds.filter((kind) => providerVar.get(kind) === name);
    const targets = entry.profiles ?? naming;
    const key = ['credentials', name];
    if (targets.length === 0) {
      problems.push(
        problem(
          key,
          entry,
          'is named by no deployed provider and lists no profiles, so no profile would receive it',
          'add "profiles": [<kinds>] for a model key, or remove the credential',
        ),
      );
      continue;
    }
    targets.forEach((kind, i) => {
      if (!kinds.includes(kind)) {
        // Often the profile's own key is misspelt (reported too): deploying it is the other fix.
        problems.push(
          problem(
            [...key, 'profiles', i],
            kind,
            'names a profile this deployment does not deploy',
            `remove "${kind}" here, or deploy it under "profiles" (deployed: ${kinds.map((k) => `"${k}"`).join(', ') || 'none'})`,
          ),
        );
      }
    });
    for (const kind of naming) {
      if (!targets.includes(kind)) {
        problems.push(
          problem(
            [...key, 'profiles'],
            entry.profiles,
            `leaves out "${kind}", whose provider needs this credential`,
            `add "${kind}" to "profiles" (or drop "profiles" to route it automatically)`,
          ),
        );
      }
    }
    for (const kind of targets) {
      const route = routes.get(kind);
      if (route !== undefined) route.all[name] = sourceOf(entry);
    }
  }
  for (const kind of kinds) {
    const name = providerVar.get(kind)!;
    if (!Object.hasOwn(deployment.credentials, name)) {
      problems.push(
        problem(
          ['profiles', kind, 'provider'],
          name,
          `names credential variable ${name}, but "credentials" does not say where the launcher gets it`,
          `add "credentials": {"${name}": {"file": "<absolute path>"}} or {"${name}": {"inherit": true}}`,
        ),
      );
    }
  }
  return { routes, problems };
}
