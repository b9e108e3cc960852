// `<installDir>/broker/broker.json`: what render tells the credential broker. Every path in it is
// absolute; every upstream is an origin the deployment configured; the routes are the providers' own
// requests and the pinned Qwen's model client, derived by render, never written by hand.
import * as z from 'zod/mini';
import { PROFILE_KINDS } from './launch-plan.js';

const routeSchema = z.strictObject({
  method: z.enum(['GET', 'POST']),
  path: z.string().check(z.regex(/^\/[^?#\s]*$/)),
});

export const listenerSchema = z.strictObject({
  /** `model`, or the profile whose provider this listener fronts. */
  name: z.enum(['model', ...PROFILE_KINDS]),
  port: z.int().check(z.gte(1), z.lte(65_535)),
  /** The real origin requests go to (`https://host[:port]`). */
  upstream: z.string(),
  /** The credential variable whose value the broker sends upstream. */
  credential: z.string(),
  /** The header that carries it: `<name>: <prefix><value>`. */
  header: z.strictObject({ name: z.string(), prefix: z.string() }),
  /**
   * The whole upstream exchange's deadline, below the profile's own timeout (so the runtime sees the
   * broker's 504, not its own timeout). Absent for the model: a streamed answer has no total bound,
   * only the idle timeouts of src/base/limits.ts.
   */
  timeoutMs: z.optional(z.int().check(z.gte(1))),
  /** Largest request body the listener accepts. */
  maxBodyBytes: z.int().check(z.gte(1)),
  routes: z.array(routeSchema).check(z.minLength(1)),
  /**
   * The caller headers the listener forwards (lower-case names), besides the ones the broker sets: a
   * provider's are the runtimes' own, the model's the pinned Qwen's model client's. Every other header
   * stays behind, so none an upstream or a gateway in front of it
   * reads as another tenant, bill, route or feature comes from the caller.
   */
  callerHeaders: z.array(z.string().check(z.regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/))),
});

export const brokerConfigSchema = z.strictObject({
  version: z.literal(1),
  /** The system user the broker runs as. */
  user: z.string(),
  /** Who may connect, resolved against the host's user database by the broker. */
  allow: z.strictObject({ users: z.array(z.string()), groups: z.array(z.string()) }),
  host: z.literal('127.0.0.1'),
  /** Where each credential is read: the file (as root, before the broker drops privileges). */
  credentials: z.record(z.string(), z.strictObject({ file: z.string() })),
  /** The deployment's private CA (tls.extraCaCertificates), trusted for upstream HTTPS. */
  extraCaCertificates: z.optional(z.string()),
  listeners: z.array(listenerSchema).check(z.minLength(1)),
});

export type BrokerConfig = z.infer<typeof brokerConfigSchema>;
export type BrokerListener = z.infer<typeof listenerSchema>;
