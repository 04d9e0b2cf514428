// A throwaway certificate authority and server certificate for the fake API server, generated at start so
// clients verify TLS exactly as against a cluster (kubeconfig carries the CA, the server name is checked
// against the SAN). node:crypto makes keys and signatures but not certificates, so the X.509 structures are
// written here in DER by hand (RFC 5280): ECDSA P-256 with SHA-256, a CA with keyCertSign, and a leaf with
// serverAuth for localhost, 127.0.0.1 and ::1. Nothing here is meant to be secure beyond one test run.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const octets = (value: Buffer) => tlv(0x04, value);
const utf8 = (value: string) => tlv(0x0c, Buffer.from(value, 'utf8'));
const explicit = (tagNumber: number, content: Buffer) => tlv(0xa0 + tagNumber, content);
const bitString = (value: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), value);
const boolean = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));

function integer(value: Buffer): Buffer {
  // DER integers are signed: a leading 1 bit needs a zero byte in front to stay positive.
  return tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let rest = part >> 7; rest > 0; rest >>= 7) chunk.unshift(0x80 | (rest & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-24T01:07:00.000Z → 261124010700Z
  return tlv(
    0x17,
    Buffer.from(
      `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`,
    ),
  );
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

function name(commonName: string): Buffer {
  return sequence(set(sequence(oid('2.5.4.3'), utf8(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octets(value));
}

function keyIdentifier(publicKey: KeyObject): Buffer {
  return createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
}

function ipBytes(address: string): Buffer {
  if (address.includes(':')) {
    // Only the forms used here: '::1'.
    const bytes = Buffer.alloc(16);
    bytes[15] = Number(address.split(':').pop() || 0);
    return bytes;
  }
  return Buffer.from(address.split('.').map(Number));
}

interface CertificateSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerPublicKey: KeyObject;
  ca: boolean;
  dnsNames?: string[];
  ipAddresses?: string[];
  notBefore: Date;
  notAfter: Date;
}

function certificate(spec: CertificateSpec): string {
  const extensions = [
    extension('2.5.29.19', true, spec.ca ? sequence(boolean(true)) : sequence()),
    // keyUsage: CA → digitalSignature, keyCertSign, cRLSign (0x86, 1 unused bit); leaf → digitalSignature (0x80, 7).
    extension('2.5.29.15', true, spec.ca ? bitString(Buffer.from([0x86]), 1) : bitString(Buffer.from([0x80]), 7)),
    extension('2.5.29.14', false, octets(keyIdentifier(spec.publicKey))),
    extension('2.5.29.35', false, sequence(tlv(0x80, keyIdentifier(spec.issuerPublicKey)))),
  ];
  if (!spec.ca) {
    extensions.push(extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))));
    const names = [
      ...(spec.dnsNames ?? []).map((dns) => tlv(0x82, Buffer.from(dns))),
      ...(spec.ipAddresses ?? []).map((ip) => tlv(0x87, ipBytes(ip))),
    ];
    extensions.push(extension('2.5.29.17', false, sequence(...names)));
  }
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_WITH_SHA256,
    name(spec.issuer),
    sequence(utcTime(spec.notBefore), utcTime(spec.notAfter)),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, spec.signingKey);
  return pem('CERTIFICATE', sequence(tbs, ECDSA_WITH_SHA256, bitString(signature)));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export interface ServingCertificate {
  /** PEM of the CA that signed `cert`: what a kubeconfig's certificate-authority-data carries. */
  caPem: string;
  /** PEM of the server certificate (SAN localhost, 127.0.0.1, ::1). */
  certPem: string;
  keyPem: string;
}

export function generateServingCertificate(now = new Date()): ServingCertificate {
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + 365 * 24 * 60 * 60 * 1000);
  const caPem = certificate({
    subject: 'fake-kube-api-ca',
    issuer: 'fake-kube-api-ca',
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerPublicKey: ca.publicKey,
    ca: true,
    notBefore,
    notAfter,
  });
  const certPem = certificate({
    subject: 'fake-kube-apiserver',
    issuer: 'fake-kube-api-ca',
    publicKey: leaf.publicKey,
    signingKey: ca.privateKey,
    issuerPublicKey: ca.publicKey,
    ca: false,
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default'],
    ipAddresses: ['127.0.0.1', '::1'],
    notBefore,
    notAfter,
  });
  return { caPem, certPem, keyPem: leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
