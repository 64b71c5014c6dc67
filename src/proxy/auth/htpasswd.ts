// htpasswd password hashes the proxy can check: `{SHA}` (base64 SHA-1, as `htpasswd -s` writes) and
// `$apr1$` (Apache's MD5-crypt variant, `htpasswd -m`, the Apache default). bcrypt (`$2y$`) needs a
// library Node does not ship, so such entries are refused at translation (docs/auth.md "Basic auth").
import { createHash, timingSafeEqual } from 'node:crypto';

const itoa64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const htpasswdFormats = [
  { name: '{SHA}', pattern: /^\{SHA\}[A-Za-z0-9+/]{27}=$/ },
  { name: '$apr1$', pattern: /^\$apr1\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22}$/ },
] as const;

export function supportedHash(hash: string): boolean {
  return htpasswdFormats.some((f) => f.pattern.test(hash));
}

const md5 = (...parts: (Buffer | string)[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Apache MD5-crypt (`$apr1$salt$digest`): the FreeBSD MD5-crypt algorithm with the magic `$apr1$`. */
export function apr1(password: string, salt: string): string {
  const pw = Buffer.from(password, 'utf8');
  const magic = '$apr1$';
  const alt = md5(pw, salt, pw);
  const parts: (Buffer | string)[] = [pw, magic, salt];
  for (let left = pw.length; left > 0; left -= 16) parts.push(alt.subarray(0, Math.min(16, left)));
  for (let i = pw.length; i > 0; i >>= 1) parts.push(i & 1 ? Buffer.of(0) : pw.subarray(0, 1));
  let f = md5(...parts);
  for (let i = 0; i < 1000; i++) {
    f = md5(i & 1 ? pw : f, i % 3 ? salt : '', i % 7 ? pw : '', i & 1 ? f : pw);
  }
  const b = (i: number): number => f[i] as number;
  let out = '';
  const to64 = (v: number, n: number): void => {
    for (let k = 0; k < n; k++, v >>= 6) out += itoa64[v & 0x3f];
  };
  to64((b(0) << 16) | (b(6) << 8) | b(12), 4);
  to64((b(1) << 16) | (b(7) << 8) | b(13), 4);
  to64((b(2) << 16) | (b(8) << 8) | b(14), 4);
  to64((b(3) << 16) | (b(9) << 8) | b(15), 4);
  to64((b(4) << 16) | (b(10) << 8) | b(5), 4);
  to64(b(11), 2);
  return `${magic}${salt}$${out}`;
}

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a),
    y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Whether `password` matches the htpasswd `hash`; false for unsupported formats. Compares in constant time. */
export function verifyHtpasswd(hash: string, password: string): boolean {
  if (hash.startsWith('{SHA}'))
    return sameText(hash, `{SHA}${createHash('sha1').update(password, 'utf8').digest('base64')}`);
  const m = /^\$apr1\$([^$]{1,8})\$/.exec(hash);
  if (m) return sameText(hash, apr1(password, m[1] as string));
  return false;
}
