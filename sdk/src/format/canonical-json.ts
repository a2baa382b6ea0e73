import { AdcapError } from '../errors.js';
import { sha256Hex } from '../util/hash.js';

/**
 * Canonical JSON (spec §4, DESIGN §4): object keys sorted by UTF-16 code unit, no insignificant
 * whitespace, strings exactly as JSON.stringify writes them (which escapes lone surrogates), and
 * integers only. Everything hashed or signed goes through here.
 */
export function canonicalJson(value: unknown): string {
  const text = write(value);
  if (text === undefined) throw notRepresentable(value);
  return text;
}

/** Canonical JSON as UTF-8 bytes. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

/** spec §4: manifestSha256 is the SHA-256 of the canonical JSON of the complete manifest. */
export function manifestDigest(manifest: unknown): string {
  return sha256Hex(canonicalBytes(manifest));
}

/**
 * The canonical form of `value`, or undefined when something in it cannot be written. The hot
 * path builds no JSON pointers (a failure goes back to find where: notRepresentable) and
 * concatenates strings, which V8 joins as ropes (2-3x faster than an array of parts here).
 */
function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // spec §4: integers only; floats are not allowed in signed data.
      if (!Number.isSafeInteger(value)) return undefined;
      return Object.is(value, -0) ? '0' : String(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let index = 0; index < value.length; index++) {
          const item = write(value[index]);
          if (item === undefined) return undefined;
          out += index > 0 ? `,${item}` : item;
        }
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      // The default sort compares UTF-16 code units, the order the spec requires.
      const keys = Object.keys(record).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined) continue;
        const text = write(member);
        if (text === undefined) return undefined;
        out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
        first = false;
      }
      return `${out}}`;
    }
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return undefined;
  }
}

/** The E_JSON error for the first value canonical JSON cannot hold, naming its JSON pointer. */
function notRepresentable(root: unknown): AdcapError {
  const found = findBad(root, '');
  const pointer = found?.pointer ?? '';
  const bad = found?.value;
  const message =
    typeof bad === 'number'
      ? `The value at ${pointer || '/'} is ${String(bad)}, but signed data may hold only integers between -(2^53-1) and 2^53-1.`
      : `The value at ${pointer || '/'} is a ${typeof bad}, which JSON cannot represent.`;
  return new AdcapError('E_JSON', message, { details: { pointer } });
}

function findBad(value: unknown, pointer: string): { pointer: string; value: unknown } | null {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? null : { pointer, value };
  if (typeof value !== 'object') return { pointer, value };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBad(value[i], `${pointer}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    const found = findBad(record[key], `${pointer}/${escapePointer(key)}`);
    if (found !== null) return found;
  }
  return null;
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
