import { AdcapError } from '../errors.js';
import { escapePointer } from './canonical-json.js';

/**
 * A strict JSON parser for signed documents (manifests, workflows, envelopes, catalogues).
 * JSON.parse silently keeps the last of duplicate keys and accepts floats, so two readers could
 * see different documents behind one digest. This parser refuses, with `E_JSON`:
 * duplicate object keys, numbers with a fraction or exponent, integers outside the safe range,
 * and anything RFC 8259 does not allow. `what` names the document in error messages.
 */
export function parseStrictJson(input: string | Uint8Array, what: string): unknown {
  const text = typeof input === 'string' ? input : decodeUtf8(input, what);
  return new StrictParser(text, what).parseDocument();
}

const MAX_DEPTH = 512;
/** RFC 8259 number syntax, matched in place (sticky) at the parser's position. */
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    throw new AdcapError('E_JSON', `${what} is not valid UTF-8.`, { cause });
  }
}

class StrictParser {
  private pos = 0;
  /** Keys and indexes down to the value being parsed; a JSON pointer is built only on failure. */
  private readonly path: Array<string | number> = [];

  constructor(
    private readonly text: string,
    private readonly what: string,
  ) {}

  parseDocument(): unknown {
    if (this.text.charCodeAt(0) === 0xfeff) this.fail('starts with a byte order mark, which signed JSON may not carry', false);
    this.skipWhitespace();
    const value = this.parseValue(0);
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail('has extra text after the JSON value', false);
    return value;
  }

  private pointer(): string {
    return this.path.map((token) => `/${typeof token === 'number' ? token : escapePointer(token)}`).join('');
  }

  private fail(problem: string, withPointer = true): never {
    const pointer = withPointer ? this.pointer() : undefined;
    const where = pointer === undefined ? `at offset ${this.pos}` : `at ${pointer || '/'} (offset ${this.pos})`;
    throw new AdcapError('E_JSON', `${this.what} ${problem} ${where}.`, {
      details: { offset: this.pos, ...(pointer === undefined ? {} : { pointer }) },
    });
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return;
    }
  }

  private parseValue(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(`nests deeper than ${MAX_DEPTH} levels`);
    const c = this.text[this.pos];
    switch (c) {
      case '{':
        return this.parseObject(depth);
      case '[':
        return this.parseArray(depth);
      case '"':
        return this.parseString();
      case 't':
        return this.parseLiteral('true', true);
      case 'f':
        return this.parseLiteral('false', false);
      case 'n':
        return this.parseLiteral('null', null);
      case undefined:
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.parseNumber();
        return this.fail(c === undefined ? 'ends unexpectedly' : `has an unexpected character ${JSON.stringify(c)}`);
    }
  }

  private parseLiteral<T>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    return this.fail('has an invalid literal');
  }

  private parseObject(depth: number): Record<string, unknown> {
    this.pos++; // {
    const result: Record<string, unknown> = {};
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return {};
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('expects a quoted object key');
      const key = this.parseString();
      this.path.push(key);
      if (seen.has(key)) this.fail(`has the key ${JSON.stringify(key)} twice; duplicate keys are not allowed in signed data`);
      seen.add(key);
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail('expects ":" after an object key');
      this.pos++;
      this.skipWhitespace();
      const value = this.parseValue(depth + 1);
      // A "__proto__" key is plain data, never a prototype change.
      if (key === '__proto__') Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      else result[key] = value;
      this.path.pop();
      this.skipWhitespace();
      const next = this.text[this.pos];
      if (next === ',') {
        this.pos++;
        continue;
      }
      if (next === '}') {
        this.pos++;
        break;
      }
      this.fail('expects "," or "}" in an object');
    }
    return result;
  }

  private parseArray(depth: number): unknown[] {
    this.pos++; // [
    const result: unknown[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      this.path.push(result.length);
      result.push(this.parseValue(depth + 1));
      this.path.pop();
      this.skipWhitespace();
      const next = this.text[this.pos];
      if (next === ',') {
        this.pos++;
        continue;
      }
      if (next === ']') {
        this.pos++;
        return result;
      }
      this.fail('expects "," or "]" in an array');
    }
  }

  private parseString(): string {
    this.pos++; // opening quote
    let out = '';
    let chunkStart = this.pos;
    for (;;) {
      const code = this.text.charCodeAt(this.pos);
      if (Number.isNaN(code)) this.fail('has an unterminated string');
      if (code === 0x22) {
        out += this.text.slice(chunkStart, this.pos);
        this.pos++;
        return out;
      }
      if (code < 0x20) this.fail('has an unescaped control character in a string');
      if (code === 0x5c) {
        out += this.text.slice(chunkStart, this.pos);
        out += this.parseEscape();
        chunkStart = this.pos;
        continue;
      }
      this.pos++;
    }
  }

  private parseEscape(): string {
    const c = this.text[this.pos + 1];
    this.pos += 2;
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.text.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('has an invalid \\u escape');
        this.pos += 4;
        // Lone surrogates are legal JSON; canonical JSON re-escapes them exactly as JSON.stringify does.
        return String.fromCharCode(parseInt(hex, 16));
      }
      case undefined:
      default:
        this.pos -= 2;
        return this.fail('has an invalid escape sequence');
    }
  }

  private parseNumber(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null || match[0] === '-') this.fail('has an invalid number');
    const literal = match[0];
    // spec §4 / DESIGN §3: signed data holds integers only; "1.0" and "1e3" are refused as written.
    if (match[2] !== undefined || match[3] !== undefined) {
      this.fail(`has the number ${literal}, but only integers are allowed in signed data`);
    }
    const value = Number(literal);
    if (!Number.isSafeInteger(value)) this.fail(`has the integer ${literal}, which is outside the safe range (±2^53-1)`);
    this.pos += literal.length;
    return value === 0 ? 0 : value;
  }
}
