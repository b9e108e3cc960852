// verify and the private CA of deployment.json `tls`: the file as host.pins sees it (the launcher's
// rules) and its content as host.ca reads it. Real files, real modes, real certificates.
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { type CaFileFact, checkCaFiles } from '../../../src/deploy/verify/checks/ca-file.js';
import { type Check, Checks } from '../../../src/deploy/verify/report.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';
import { allProfilesRaw, fakeRuntimes, renderToDir, tempDir, verifyInstall } from './fixtures.js';

const CERT = createTestCertificate('qwen-managed test CA');
const OTHER = createTestCertificate('qwen-managed second CA');
const der = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');

/** Renders a deployment whose tls points at `<tmp>/pki/ca.pem`, lets `make` create it, verifies. */
async function verifyCa(make: (ca: string) => Promise<void>, now?: string) {
  const root = await tempDir('qm-ca-');
  await fs.chmod(root, 0o755);
  const ca = path.join(root, 'pki', 'ca.pem');
  await fs.mkdir(path.dirname(ca), { mode: 0o755 });
  await make(ca);
  const raw = await allProfilesRaw();
  raw.tls = { extraCaCertificates: ca };
  const dir = await renderToDir(parseDeploymentValue(raw));
  const report = await verifyInstall(dir, now === undefined ? {} : { now });
  const show = (c: Check) => [c.severity, c.ok, c.message.replaceAll(JSON.stringify(ca), '"CA"')];
  return {
    // host.pins rows about the CA file (node and Qwen of the fixture do not exist here: not this test's).
    pins: report.checks.filter((c) => c.id === 'host.pins' && c.message.includes('CA file')).map(show),
    content: report.checks.filter((c) => c.id === 'host.ca').map(show),
  };
}

const file =
  (content: string | Buffer, mode = 0o644) =>
  async (ca: string) => {
    await fs.writeFile(ca, content);
    await fs.chmod(ca, mode);
  };

const LABEL = 'CA file (NODE_EXTRA_CA_CERTS) "CA"';
const PASS_ONE = [
  'error',
  true,
  `${LABEL} holds 1 certificate, each parsed by node:crypto, and no private key`,
];
const NO_PEM = [
  'error',
  false,
  `${LABEL} holds no PEM block; Node reads NODE_EXTRA_CA_CERTS as PEM only and ignores anything else without a word; fix: write the CA certificate in PEM form (a DER file converts with: openssl x509 -inform der -in ca.der -out ca.pem)`,
];
const privateKey = (block: number, label: string) => [
  'error',
  false,
  `${LABEL}: block ${block} (-----BEGIN ${label}-----) is a private key; a CA file is read by every developer's Qwen, so the key is exposed to them; fix: keep only the CERTIFICATE blocks in the file, and replace the key if the file was ever readable`,
];

describe('verify host.pins: the CA file on this machine (the launcher refuses what is an error here)', () => {
  it.each<[string, (ca: string) => Promise<void>, unknown[]]>([
    [
      'absent: a warning (a staged tree)',
      async () => {},
      [
        [
          'warning',
          false,
          `CA file (NODE_EXTRA_CA_CERTS) "CA" does not exist on this machine (fine for a staged tree; the launcher refuses to start until it does)`,
        ],
      ],
    ],
    [
      'a directory: an error',
      async (ca) => fs.mkdir(ca, { mode: 0o755 }),
      [['error', false, `CA file (NODE_EXTRA_CA_CERTS) "CA" is not a regular file`]],
    ],
    [
      'group-writable: an error',
      file(CERT.cert, 0o664),
      [
        [
          'error',
          false,
          `CA file (NODE_EXTRA_CA_CERTS) "CA" is writable by group or others (mode 664); the launcher refuses it`,
        ],
      ],
    ],
    [
      'world-writable: an error',
      file(CERT.cert, 0o646),
      [
        [
          'error',
          false,
          `CA file (NODE_EXTRA_CA_CERTS) "CA" is writable by group or others (mode 646); the launcher refuses it`,
        ],
      ],
    ],
    [
      'readable by its group only: a warning',
      file(CERT.cert, 0o640),
      [
        [
          'warning',
          false,
          `CA file (NODE_EXTRA_CA_CERTS) "CA" is not readable by every user (mode 640); the launcher refuses to start for a developer who cannot read it; certificates are public: chmod 0644, unless only its group may launch`,
        ],
      ],
    ],
    ['0644: nothing to say', file(CERT.cert), []],
  ])('%s', async (_title, make, rows) => {
    expect((await verifyCa(make)).pins).toEqual(rows);
  });

  it('reads the content only of a regular file', async () => {
    expect((await verifyCa(async () => {})).content).toEqual([]);
    expect((await verifyCa(async (ca) => fs.mkdir(ca))).content).toEqual([]);
  });
});

describe('verify host.ca: the CA file holds certificates node:crypto parses, and no private key', () => {
  it.each<[string, string | Buffer, unknown[]]>([
    ['one certificate (createTestCertificate)', CERT.cert, [PASS_ONE]],
    [
      'two certificates with text between, as openssl prints them',
      `subject=CN=one\n${CERT.cert}\n# second\n${OTHER.cert}`,
      [['error', true, `${LABEL} holds 2 certificates, each parsed by node:crypto, and no private key`]],
    ],
    ['an empty file', '', [NO_PEM]],
    ['garbage', 'this is not a certificate\n', [NO_PEM]],
    ['a DER certificate (Node ignores it without a word)', der(CERT.cert), [NO_PEM]],
    ['a private key alone', CERT.key, [privateKey(1, 'PRIVATE KEY')]],
    ['a key + certificate bundle', CERT.key + CERT.cert, [privateKey(1, 'PRIVATE KEY')]],
    [
      'a certificate followed by an RSA key block',
      `${CERT.cert}-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n`,
      [privateKey(2, 'RSA PRIVATE KEY')],
    ],
    [
      'an encrypted private key, even cut short',
      `${CERT.cert}-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB`,
      [privateKey(2, 'ENCRYPTED PRIVATE KEY')],
    ],
    [
      'a certificate without its END line',
      CERT.cert.replace('-----END CERTIFICATE-----\n', ''),
      [
        [
          'error',
          false,
          `${LABEL}: block 1 (-----BEGIN CERTIFICATE-----) has no -----END CERTIFICATE----- line; fix: restore the complete PEM block`,
        ],
      ],
    ],
    [
      'a CERTIFICATE block that is not a certificate',
      `-----BEGIN CERTIFICATE-----\n${Buffer.from('not DER at all').toString('base64')}\n-----END CERTIFICATE-----\n`,
      [
        [
          'error',
          false,
          `${LABEL}: block 1 (-----BEGIN CERTIFICATE-----) does not parse as an X.509 certificate (…); fix: replace it with the CA certificate in PEM form`,
        ],
      ],
    ],
    [
      'a certificate and a CRL block',
      `${CERT.cert}-----BEGIN X509 CRL-----\nMIIB\n-----END X509 CRL-----\n`,
      [
        PASS_ONE,
        [
          'warning',
          false,
          `${LABEL}: block 2 (-----BEGIN X509 CRL-----) is not a certificate and Node ignores it; fix: keep only CERTIFICATE blocks`,
        ],
      ],
    ],
  ])('%s', async (_title, content, rows) => {
    const { content: found } = await verifyCa(file(content));
    // OpenSSL's own words for a parse failure vary by version; everything else is pinned.
    expect(
      found.map(([s, ok, m]) => [
        s,
        ok,
        String(m).replace(/certificate \(.*\); fix/, 'certificate (…); fix'),
      ]),
    ).toEqual(rows);
  });

  it('warns about an expired certificate (verify judges expiry at its own time)', async () => {
    const { content } = await verifyCa(file(CERT.cert), '2099-01-01T00:00:00.000Z');
    const validTo = new X509Certificate(CERT.cert).validTo;
    expect(content).toEqual([
      PASS_ONE,
      [
        'warning',
        false,
        `${LABEL}: block 1 (-----BEGIN CERTIFICATE-----) ("CN=qwen-managed test CA") expired on ${validTo}; TLS through this CA fails; fix: put the renewed CA certificate in the file`,
      ],
    ]);
  });
});

describe('verify launch.paths and drift: the NODE_EXTRA_CA_CERTS entry only when the deployment asks for it', () => {
  async function staged(tls: boolean) {
    const root = await tempDir('qm-ca-drift-');
    const runtimeDir = path.join(root, 'runtime');
    await fs.mkdir(runtimeDir);
    for (const [name, bytes] of fakeRuntimes()) await fs.writeFile(path.join(runtimeDir, name), bytes);
    const raw = await allProfilesRaw();
    if (tls) raw.tls = { extraCaCertificates: '/etc/qwen-managed/ca.pem' };
    const deployment = path.join(root, tls ? 'with-tls.json' : 'without-tls.json');
    await fs.writeFile(deployment, JSON.stringify(raw));
    return { dir: await renderToDir(parseDeploymentValue(raw)), deployment, runtimeDir };
  }
  /** Every failed error-severity check, except host facts (the fixture's node and Qwen are not on this machine). */
  const errors = (checks: readonly Check[]) =>
    checks
      .filter((c) => !c.ok && c.severity === 'error' && !c.id.startsWith('host.'))
      .map((c) => `[${c.id}] ${c.file ?? ''}: ${c.message}`);

  it('a tree rendered with tls passes verify without --deployment, and with its own deployment.json', async () => {
    const { dir, deployment, runtimeDir } = await staged(true);
    expect(errors((await verifyInstall(dir)).checks)).toEqual([]);
    expect(errors((await verifyInstall(dir, { deploymentFile: deployment, runtimeDir })).checks)).toEqual([]);
  });

  it.each([
    ['rendered with tls, deployment.json without', true, false],
    ['rendered without tls, deployment.json with', false, true],
  ])('%s: drift names the three launch plans', async (_title, renderedWith, verifiedWith) => {
    const tree = await staged(renderedWith);
    const other = await staged(verifiedWith);
    const report = await verifyInstall(tree.dir, {
      deploymentFile: other.deployment,
      runtimeDir: tree.runtimeDir,
    });
    expect(errors(report.checks)).toEqual([
      '[drift] manifest.json: differs from a fresh render of deployment.json (it was rendered from a different deployment.json: sha256 ' +
        `${JSON.parse(await fs.readFile(path.join(tree.dir, 'manifest.json'), 'utf8')).deploymentSha256})`,
      '[drift] profiles/auto-recall/launch.json: differs from a fresh render of deployment.json',
      '[drift] profiles/on-demand/launch.json: differs from a fresh render of deployment.json',
      '[drift] profiles/write/launch.json: differs from a fresh render of deployment.json',
    ]);
  });
});

describe('checkCaFiles: what the I/O layer could not read', () => {
  it.each<[string, CaFileFact, string]>([
    [
      'unreadable',
      { kind: 'unreadable', code: 'EACCES' },
      'CA file (NODE_EXTRA_CA_CERTS) "/etc/qm/ca.pem" cannot be read (EACCES); fix: make it readable (certificates are public: chmod 0644)',
    ],
    [
      'larger than any CA bundle',
      { kind: 'too-large', size: 9_000_000 },
      'CA file (NODE_EXTRA_CA_CERTS) "/etc/qm/ca.pem" is 9000000 bytes, more than a CA bundle (8388608 bytes at most); fix: point tls.extraCaCertificates at the PEM file of the CA certificates only',
    ],
  ])('%s: one error', (_title, fact, message) => {
    const checks = new Checks();
    checkCaFiles(new Map([['/etc/qm/ca.pem', fact]]), new Date(), checks);
    expect(checks.list).toEqual([
      { id: 'host.ca', severity: 'error', ok: false, profile: null, file: null, message },
    ]);
  });
});
