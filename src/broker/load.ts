// What `qwen-managed broker --dir` checks before it binds a port: broker.json is the file render wrote
// (its sha256 in manifest.json) in an admin-owned tree (StrictModes up to `/`: whoever could edit it
// would point a credential at their own server); the user it runs as is a system user that is neither
// root nor one of the developers it serves; every credential it holds is readable and non-empty. Every
// problem is one line with its fix; the values never appear in any of them.
import { AdminInputError, errorCode } from '../base/errors.js';
import { sha256Hex } from '../base/hash.js';
import { BROKER_CONFIG_REL } from '../contracts/broker.js';
import { type BrokerConfig, brokerConfigSchema } from '../contracts/broker-config.js';
import { type InstallManifest, MANIFEST_FILE } from '../contracts/install-manifest.js';
import { installManifestSchema } from '../contracts/install-manifest-schema.js';
import type { Account, AccountDb } from '../host/accounts.js';
import type { ChainFs } from '../host/file-chain.js';
import { StrictModes } from '../host/strict-modes.js';
import { show } from '../policy/quote.js';
import { admit } from './allow.js';

export class BrokerStartError extends AdminInputError {
  override readonly name = 'BrokerStartError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** StrictModes' lstat and readlink (a ChainFs's stat also names the group), and the reads. */
export interface LoadFs extends ChainFs {
  readFileSync(path: string): Uint8Array;
}

function readJson(fs: LoadFs, file: string, what: string): unknown {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw new BrokerStartError([`cannot read ${show(file)} (${errorCode(error)}); ${what}`]);
  }
  try {
    return JSON.parse(installText(bytes));
  } catch {
    throw new BrokerStartError([`${show(file)} is not JSON; re-render the deployment`]);
  }
}

/**
 * The bytes as verify and the launcher read them: a byte order mark is kept (TextDecoder drops one
 * by default), so a manifest verify calls invalid JSON is never one the broker starts from.
 */
function installText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

export interface LoadedConfig {
  config: BrokerConfig;
  manifest: InstallManifest;
}

/** broker.json of the install `dir`, checked against manifest.json and StrictModes. */
export function loadBrokerConfig(dir: string, fs: LoadFs): LoadedConfig {
  const manifestFile = `${dir}/${MANIFEST_FILE}`;
  const manifest = installManifestSchema.safeParse(
    readJson(fs, manifestFile, 'point --dir at the installDir of a rendered deployment'),
  );
  if (!manifest.success)
    throw new BrokerStartError([`${show(manifestFile)} does not match its schema; re-render the deployment`]);
  const entry = manifest.data.files[BROKER_CONFIG_REL];
  const file = `${dir}/${BROKER_CONFIG_REL}`;
  if (entry === undefined)
    throw new BrokerStartError([
      `${show(dir)} has no credential broker: deployment.json has no "broker" block (add one and re-render)`,
    ]);
  const problems: string[] = [];
  const strict = new StrictModes(manifest.data.adminUid, fs);
  for (const path of [manifestFile, file]) {
    const chain = strict.checkChain(path);
    if (chain.kind === 'missing')
      problems.push(`${show(chain.path)} does not exist; re-render the deployment`);
  }
  problems.push(...strict.problems());
  let bytes: Uint8Array | undefined;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    problems.push(`cannot read ${show(file)} (${errorCode(error)})`);
  }
  if (bytes !== undefined && sha256Hex(bytes) !== entry.sha256)
    problems.push(
      `${show(file)} does not match its sha256 in manifest.json (changed after render); re-render`,
    );
  if (problems.length > 0) throw new BrokerStartError(problems);
  let parsed: unknown;
  try {
    parsed = JSON.parse(installText(bytes!));
  } catch {
    throw new BrokerStartError([`${show(file)} is not JSON; re-render the deployment`]);
  }
  const config = brokerConfigSchema.safeParse(parsed);
  if (!config.success)
    throw new BrokerStartError([
      `${show(file)} does not match its schema; re-render with this toolkit's version`,
    ]);
  return { config: config.data, manifest: manifest.data };
}

/** Shells that refuse a login: the broker's user must have one of these. */
export const NO_LOGIN_SHELLS: readonly string[] = [
  '/usr/sbin/nologin',
  '/sbin/nologin',
  '/bin/false',
  '/usr/bin/false',
];

/**
 * The broker's account: it must exist, must not be root, must not be able to log in, and must not be
 * one of the users it serves (an allowed developer running as the broker could read the credentials).
 */
export function brokerAccount(
  config: BrokerConfig,
  accounts: AccountDb,
  shellOf: (name: string) => string | undefined,
): Account {
  const name = config.user;
  const account = accounts.users.find((u) => u.name === name);
  const create = `create it as a system user: useradd --system --no-create-home --shell /usr/sbin/nologin ${name}`;
  if (account === undefined)
    throw new BrokerStartError([`the broker's user ${name} does not exist; ${create}`]);
  const problems: string[] = [];
  if (account.uid === 0)
    problems.push(`the broker's user ${name} has uid 0; it must be an unprivileged system user`);
  const shell = shellOf(name);
  if (shell !== undefined && !NO_LOGIN_SHELLS.includes(shell))
    problems.push(
      `the broker's user ${name} has the login shell ${show(shell)}; a login user is refused (fix: usermod --shell /usr/sbin/nologin ${name})`,
    );
  if (account.uid !== 0 && admit(account.uid, config.allow, accounts).allowed)
    problems.push(
      `the broker's user ${name} is one of the users allowed to call it (broker.allow); give the broker its own system user`,
    );
  if (problems.length > 0) throw new BrokerStartError(problems);
  return account;
}

/**
 * The install's administrator (manifest.json `adminUid`, the user who rendered it) must not be one of
 * the users the broker serves: the broker trusts their files like root's, so who may change broker.json
 * may point a credential at their own server (measured: a developer who rendered the install as
 * themselves rewrote broker.json and manifest.json, and the root-started broker sent them the model key).
 */
export function installOwnerProblems(adminUid: number, config: BrokerConfig, accounts: AccountDb): string[] {
  if (adminUid === 0) return [];
  const admission = admit(adminUid, config.allow, accounts);
  if (!admission.allowed) return [];
  const who = admission.user === null ? `uid ${adminUid}` : `${admission.user} (uid ${adminUid})`;
  return [
    `the install's administrator ${who}, who rendered it (manifest.json adminUid), is one of the users allowed to call the broker (broker.allow): the broker trusts their files, so they could point a credential at their own server; render the deployment as root (sudo qwen-managed render …), or as an administrator who is no developer`,
  ];
}

export interface CredentialSources {
  /** systemd's `$CREDENTIALS_DIRECTORY` (LoadCredential=), when the unit loaded them. */
  credentialsDirectory?: string;
  readFile(path: string): Uint8Array;
  /** A credential file's value (one trailing newline stripped); undefined when empty. */
  valueOf(content: string): string | undefined;
}

/**
 * Every credential of broker.json, by variable name: from `$CREDENTIALS_DIRECTORY/<NAME>` under
 * systemd, else from its file (readable only by root: the broker reads it before dropping privileges).
 */
export function readBrokerCredentials(config: BrokerConfig, sources: CredentialSources): Map<string, string> {
  const values = new Map<string, string>();
  const problems: string[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [name, { file }] of Object.entries(config.credentials).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const from =
      sources.credentialsDirectory === undefined ? file : `${sources.credentialsDirectory}/${name}`;
    let text: string;
    try {
      text = decoder.decode(sources.readFile(from));
    } catch (error) {
      const code = errorCode(error);
      const missing = code === 'ENOENT' || code === 'ENOTDIR';
      // A file that is not there needs the secret (or the right path), not another way to start.
      problems.push(
        code === 'error'
          ? `credential ${name}: ${show(from)} is not UTF-8 text`
          : missing && sources.credentialsDirectory === undefined
            ? `credential ${name}: ${show(from)} does not exist; fix: write the secret into it (owned by root, mode 0600), or name the file that holds it in deployment.json credentials.${name} and render again`
            : missing
              ? `credential ${name}: ${show(from)} does not exist: systemd did not load it; fix: install the install's broker/systemd.conf as the unit's drop-in (LoadCredential=${name}:…), then systemctl daemon-reload and restart the broker`
              : `credential ${name}: cannot read ${show(from)} (${code}); start the broker as root, or under systemd with its drop-in (LoadCredential=${name}:…)`,
      );
      continue;
    }
    const value = sources.valueOf(text);
    if (value === undefined) {
      problems.push(`credential ${name}: ${show(from)} is empty`);
      continue;
    }
    // It goes into an HTTP header, which no line break or NUL survives: every request would fail.
    if (/[\r\n\0]/.test(value)) {
      problems.push(
        `credential ${name}: ${show(from)} holds a line break or NUL inside the secret, which no HTTP header can carry; write only the secret, on one line`,
      );
      continue;
    }
    values.set(name, value);
  }
  for (const listener of config.listeners) {
    if (!Object.hasOwn(config.credentials, listener.credential))
      problems.push(
        `listener ${listener.name} sends credential ${listener.credential}, which broker.json does not hold; re-render`,
      );
  }
  if (problems.length > 0) throw new BrokerStartError(problems);
  return values;
}
