import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A throwaway self-signed certificate for 127.0.0.1 (openssl, one day), for loopback servers that
 * speak TLS as a hosted provider would; a client trusts it by taking `cert` as its CA.
 */
export const selfSignedCertificate = () => {
  const directory = mkdtempSync(join(tmpdir(), 'parley-tls-'))
  try {
    const [key, cert] = [join(directory, 'key.pem'), join(directory, 'cert.pem')]
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ].concat([
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ]),
      { stdio: 'ignore' },
    )
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}
