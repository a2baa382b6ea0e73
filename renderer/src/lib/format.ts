/** Small display helpers shared by the screens. */

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '?';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return 'never';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined) return 'never';
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A stable colour for a capability's monogram (no icon files are loaded from packages). */
export function monogramColour(id: string): string {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  // Hues with white text at AA contrast (saturated, mid-dark).
  return `hsl(${hash % 360} 55% 30%)`;
}

export function monogramLetters(name: string, id: string): string {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((w) => /^[\p{L}\p{N}]/u.test(w));
  const letters =
    words.length >= 2 ? `${words[0]?.[0] ?? ''}${words[1]?.[0] ?? ''}` : (words[0]?.slice(0, 2) ?? id.split('/')[1]?.slice(0, 2) ?? '?');
  return letters.toUpperCase();
}

/**
 * The browser's number format, made once: Number#toLocaleString makes one per call, which the profile of a Discover
 * render showed. Made on first use, not as the script loads: the process's first one loads ICU's number data, which
 * start.ts has done while the script downloads.
 */
let numbers: Intl.NumberFormat | null = null;

/** A count in the browser's locale ("20,000"), as toLocaleString() writes it. */
export function formatCount(count: number): string {
  numbers ??= new Intl.NumberFormat();
  return numbers.format(count);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

const PHASES: Record<string, string> = {
  resolve: 'Working out what to install',
  download: 'Downloading',
  verify: 'Checking signatures and hashes',
  extract: 'Unpacking',
  switch: 'Switching to the new version',
  resource: 'Downloading data',
  read: 'Reading',
  run: 'Running',
};

/** A progress phase from the SDK (download, verify, extract, switch, ...) in words. */
export function phaseText(phase: string): string {
  return PHASES[phase] ?? phase;
}
