// tsyringe, which @peculiar/x509 uses inside, refuses to load before the Reflect metadata API exists.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR_MS = 3_600_000;

export interface TestCertificates {
  /** The CA certificate, PEM: what a client trusts (`ca`, NODE_EXTRA_CA_CERTS). */
  caPem: string;
  /** The server's certificate, PEM, issued by the CA. */
  certPem: string;
  /** The server's private key, PKCS#8 PEM. Kept in memory only; the CA's key is never exported at all. */
  keyPem: string;
}

/**
 * A CA made for this run and a server certificate it issued for localhost, 127.0.0.1 and ::1 (ECDSA P-256).
 * The CA's private key is not extractable and is dropped once the leaf is signed, so nothing else can be
 * issued under it; nothing is written to disk.
 */
export async function issueTestCertificates(): Promise<TestCertificates> {
  const crypto = webcrypto;
  const notBefore = new Date(Date.now() - HOUR_MS); // a little slack for a clock that moves back
  const notAfter = new Date(Date.now() + 48 * HOUR_MS);
  const caKeys = await crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=emailverify webhook test CA ${randomBytes(4).toString('hex')}`,
      keys: caKeys,
      notBefore,
      notAfter,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const leafKeys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const leaf = await x509.X509CertificateGenerator.create(
    {
      subject: 'CN=localhost',
      issuer: ca.subject,
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      notBefore,
      notAfter,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        // Every name a loopback client may use.
        new x509.SubjectAlternativeNameExtension([
          { type: 'dns', value: 'localhost' },
          { type: 'ip', value: '127.0.0.1' },
          { type: 'ip', value: '::1' },
        ]),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const pkcs8 = await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return {
    caPem: ca.toString('pem'),
    certPem: leaf.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}
