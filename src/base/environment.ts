// Environment reads that only see own properties, so `__proto__`, `constructor` or `toString`
// can never resolve to something inherited from Object.prototype.

export type Environment = Readonly<Record<string, string | undefined>>;

export function readOwnEnv(env: Environment, name: string): string | undefined {
  if (!Object.hasOwn(env, name)) return undefined;
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}
