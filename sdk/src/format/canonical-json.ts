import { AdcapError } from '../errors.js';
import { sha256Hex } from '../util/hash.js';

/**
 * Canonical JSON (spec §4, DESIGN §4): object keys sorted by UTF-16 code unit, no insignificant
 * whitespace, strings exactly as JSON.stringify writes them (which escapes lone surrogates), and
 * integers only. Everything hashed or signed goes through here.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, '');
  return parts.join('');
}

/** Canonical JSON as UTF-8 bytes. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

/** spec §4: manifestSha256 is the SHA-256 of the canonical JSON of the complete manifest. */
export function manifestDigest(manifest: unknown): string {
  return sha256Hex(canonicalBytes(manifest));
}

function write(value: unknown, out: string[], pointer: string): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      // spec §4: integers only; floats are not allowed in signed data.
      if (!Number.isSafeInteger(value)) {
        throw new AdcapError(
          'E_JSON',
          `The value at ${pointer || '/'} is ${String(value)}, but signed data may hold only integers between -(2^53-1) and 2^53-1.`,
          { details: { pointer } },
        );
      }
      out.push(Object.is(value, -0) ? '0' : String(value));
      return;
    case 'object': {
      if (Array.isArray(value)) {
        out.push('[');
        value.forEach((item, index) => {
          if (index > 0) out.push(',');
          write(item, out, `${pointer}/${index}`);
        });
        out.push(']');
        return;
      }
      const record = value as Record<string, unknown>;
      // Default string comparison in JavaScript is by UTF-16 code unit, as the spec requires.
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      out.push('{');
      keys.forEach((key, index) => {
        if (index > 0) out.push(',');
        out.push(JSON.stringify(key), ':');
        write(record[key], out, `${pointer}/${escapePointer(key)}`);
      });
      out.push('}');
      return;
    }
    default:
      throw new AdcapError('E_JSON', `The value at ${pointer || '/'} is a ${typeof value}, which JSON cannot represent.`, {
        details: { pointer },
      });
  }
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
