/**
 * Standard base64 (RFC 4648 §4, with padding) decoded strictly. Buffer.from(s, 'base64') skips
 * characters it does not understand, so two different strings could name one key; here a string
 * is accepted only if it is the canonical encoding of its bytes.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The decoded bytes, or null when `text` is not canonical standard base64. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
