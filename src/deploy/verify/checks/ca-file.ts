// The private CA file of deployment.json `tls`, as found on this machine. Node reads
// NODE_EXTRA_CA_CERTS quietly: garbage or a DER file is ignored without a word, and a key+cert bundle
// works — while its private key sits in a file every developer's Qwen must be able to read. So verify
// reads it: PEM, at least one certificate, every certificate parsed by node:crypto, no private key.
import { X509Certificate } from 'node:crypto';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';

/** A CA bundle is a few hundred KB (Mozilla's is about 220 KB); beyond this verify does not read it. */
export const CA_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** What the I/O layer found in a CA file that exists and is a regular file. */
export type CaFileFact =
  | { kind: 'read'; text: string }
  | { kind: 'unreadable'; code: string }
  | { kind: 'too-large'; size: number };

export interface CaFileAnalysis {
  /** Certificates node:crypto parsed. */
  certificates: number;
  errors: string[];
  warnings: string[];
}

const BEGIN = /-----BEGIN ([^\r\n-]*)-----/g;

/** Pure: the PEM blocks of `text`, judged as Node's NODE_EXTRA_CA_CERTS loader would use them. */
export function analyzeCaFile(label: string, text: string, now: Date): CaFileAnalysis {
  const errors: string[] = [];
  const warnings: string[] = [];
  let certificates = 0;
  let blocks = 0;
  for (const match of text.matchAll(BEGIN)) {
    blocks++;
    const kind = match[1]!;
    const where = `${label}: block ${blocks} (-----BEGIN ${kind}-----)`;
    // Refused whether or not it is complete: even half a key must not sit in a file every user reads.
    if (kind.includes('PRIVATE KEY')) {
      errors.push(
        `${where} is a private key; a CA file is read by every developer's Qwen, so the key is exposed to them; fix: keep only the CERTIFICATE blocks in the file, and replace the key if the file was ever readable`,
      );
      continue;
    }
    const endLine = `-----END ${kind}-----`;
    const end = text.indexOf(endLine, match.index + match[0].length);
    if (end === -1) {
      errors.push(`${where} has no ${endLine} line; fix: restore the complete PEM block`);
      continue;
    }
    if (kind !== 'CERTIFICATE') {
      warnings.push(`${where} is not a certificate and Node ignores it; fix: keep only CERTIFICATE blocks`);
      continue;
    }
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(text.slice(match.index, end + endLine.length));
    } catch (error) {
      errors.push(
        `${where} does not parse as an X.509 certificate (${(error as Error).message}); fix: replace it with the CA certificate in PEM form`,
      );
      continue;
    }
    certificates++;
    if (Date.parse(certificate.validTo) < now.getTime()) {
      warnings.push(
        `${where} (${showValue(certificate.subject.replaceAll('\n', ', '))}) expired on ${certificate.validTo}; TLS through this CA fails; fix: put the renewed CA certificate in the file`,
      );
    }
  }
  if (blocks === 0) {
    errors.push(
      `${label} holds no PEM block; Node reads NODE_EXTRA_CA_CERTS as PEM only and ignores anything else without a word; fix: write the CA certificate in PEM form (a DER file converts with: openssl x509 -inform der -in ca.der -out ca.pem)`,
    );
  } else if (certificates === 0 && errors.length === 0) {
    errors.push(`${label} holds no certificate; fix: add the CA certificate as a CERTIFICATE block`);
  }
  return { certificates, errors, warnings };
}

/** Label of the CA file in every message: the variable it reaches Qwen by and the path. */
export function caFileLabel(file: string): string {
  return `CA file (NODE_EXTRA_CA_CERTS) ${showValue(file)}`;
}

export function checkCaFiles(facts: ReadonlyMap<string, CaFileFact>, now: Date, checks: Checks): void {
  for (const [file, fact] of [...facts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const label = caFileLabel(file);
    if (fact.kind === 'unreadable') {
      checks.add(
        'host.ca',
        {},
        false,
        `${label} cannot be read (${fact.code}); fix: make it readable (certificates are public: chmod 0644)`,
      );
      continue;
    }
    if (fact.kind === 'too-large') {
      checks.add(
        'host.ca',
        {},
        false,
        `${label} is ${fact.size} bytes, more than a CA bundle (${CA_FILE_MAX_BYTES} bytes at most); fix: point tls.extraCaCertificates at the PEM file of the CA certificates only`,
      );
      continue;
    }
    const found = analyzeCaFile(label, fact.text, now);
    const plural = found.certificates === 1 ? 'certificate' : 'certificates';
    checks.expect(
      'host.ca',
      {},
      found.errors,
      `${label} holds ${found.certificates} ${plural}, each parsed by node:crypto, and no private key`,
    );
    for (const warning of found.warnings) checks.add('host.ca', {}, false, warning, 'warning');
  }
}
