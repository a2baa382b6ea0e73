/**
 * Address ranges that are this machine or the networks around it: one
 * classifier for the sandbox's network proxy (what a granted name may resolve to) and the source
 * policy (where publisher-chosen shard and resource URLs may point).
 */
import net from 'node:net';

/** The eight 16-bit words of an IPv6 address (zone id dropped), or null. */
export function ipv6Words(ip: string): number[] | null {
  let text = ip.toLowerCase().replace(/%.*$/, '');
  if (net.isIPv6(text) === false) return null;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4 !== null && v4[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, text.length - v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  const words = [...left, ...fill, ...right].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

export function v4FromWords(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/**
 * Addresses a host *name* must not resolve to unless the scope names them literally:
 * this machine and the networks around it, which a publisher's DNS record can point at
 * (DNS rebinding) to reach services that trust the local network.
 * IPv4: 0/8 (this host), 10/8, 172.16/12, 192.168/16 (private), 100.64/10 (carrier-grade NAT),
 * 127/8 (loopback), 169.254/16 (link-local, cloud metadata), 192.0.0/24 (IETF), 198.18/15
 * (benchmarking), 224/4 (multicast), 240/4 and the broadcast address.
 * IPv6: :: and ::1, fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (old site-local),
 * ff00::/8 (multicast), and IPv4 addresses embedded in ::ffff:0:0/96, ::/96, 64:ff9b::/96 (NAT64)
 * and 2002::/16 (6to4), which are checked as IPv4.
 */
export function isInternalAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a = 0, b = 0, c = 0] = ip.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      a >= 224 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0 && c === 0) ||
      (a === 198 && (b === 18 || b === 19))
    );
  }
  const w = ipv6Words(ip);
  if (w === null) return true; // not an address we understand: never dial it
  const [w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0] = w;
  const zeroTo = (n: number): boolean => w.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && w5 === 0xffff) return isInternalAddress(v4FromWords(w6, w7)); // ::ffff:a.b.c.d
  if (zeroTo(6)) return (w6 === 0 && (w7 === 0 || w7 === 1)) || isInternalAddress(v4FromWords(w6, w7)); // ::, ::1, ::a.b.c.d
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return isInternalAddress(v4FromWords(w6, w7));
  if (w0 === 0x2002) return isInternalAddress(v4FromWords(w1, w2));
  return (w0 & 0xfe00) === 0xfc00 || (w0 & 0xffc0) === 0xfe80 || (w0 & 0xffc0) === 0xfec0 || (w0 & 0xff00) === 0xff00;
}
