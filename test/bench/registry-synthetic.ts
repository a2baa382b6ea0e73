/**
 * The synthetic registry of the registry-scale bench (docs/scaling.md "How it was measured"): one
 * version per capability, every version pointing at one small blob, about one publisher per 50
 * capabilities with a real Ed25519 key, and summaries drawn from a made-up 4,096-word vocabulary
 * with a Zipf-like distribution so text compresses about as well as real blurbs. Shared by
 * registry-scale-child.ts (v1 and the first v2 prototype) and registry-v2-child.ts (the real v2
 * builder and client).
 */
import { createHash } from 'node:crypto';
import type { PublisherFile, VersionEntry } from '../../sdk/src/registry/types.js';
import { generateKey } from '../../sdk/src/trust/keys.js';

const ONE_BLOB = 'c0'.repeat(32);

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const WORDS = [
  'pdf',
  'forms',
  'csv',
  'tables',
  'search',
  'index',
  'vector',
  'image',
  'audio',
  'translate',
  'summarise',
  'chart',
  'sql',
  'http',
  'git',
  'docs',
  'review',
  'contract',
  'invoice',
  'calendar',
  'email',
  'slides',
  'diagram',
  'lint',
  'test',
  'deploy',
  'metrics',
  'logs',
  'trace',
  'budget',
  'legal',
  'health',
];
/** A deterministic pseudo-random number for (i, salt), so runs are comparable. */
export function rand(i: number, salt: number): number {
  let x = Math.imul(i + 1, 2654435761) ^ Math.imul(salt + 1, 40503);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * A vocabulary of 4,096 made-up words of two to four syllables: summaries drawn from it compress
 * about as well as real English blurbs (gzip ~2.5-3x), unlike a 16-word list, which would flatter
 * every gzip figure.
 */
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'ta',
  'vo',
  'zi',
  'pre',
  'sum',
  'dex',
  'tor',
  'lan',
  'gra',
  'phi',
  'con',
  'tra',
  'ven',
  'ish',
  'ol',
  'ar',
  'bel',
  'cy',
  'dor',
  'em',
  'fal',
  'gen',
  'hy',
  'in',
  'jor',
  'kel',
  'lum',
];
const VOCAB = Array.from({ length: 4096 }, (_, w) => {
  const n = 2 + (rand(w, 99) % 3);
  let out = '';
  for (let k = 0; k < n; k++) out += SYLLABLES[rand(w, k) % SYLLABLES.length] as string;
  return out;
});

function word(i: number, salt: number): string {
  // Zipf-like: low indices (common words) come up far more often than high ones.
  const r = rand(i, salt) / 0x100000000;
  return salt < 6 ? (WORDS[rand(i, salt) % WORDS.length] as string) : (VOCAB[Math.floor(VOCAB.length * r * r)] as string);
}

function sentence(i: number, words: number): string {
  return Array.from({ length: words }, (_, k) => word(i, 10 + k)).join(' ');
}

export function publisherCount(count: number): number {
  return Math.max(500, Math.floor(count / 50));
}

export function entryFor(i: number, version: string, count: number): VersionEntry {
  const pub = `pub-${i % publisherCount(count)}`;
  const a = word(i, 1);
  const b = word(i, 2);
  return {
    id: `${pub}/${a}-${b}-${i}`,
    version,
    manifestSha256: sha256(`${i}@${version}`),
    archive: { sha256: ONE_BLOB, size: 4096, urls: [`blobs/sha256/${ONE_BLOB}.adcap`] },
    signers: [sha256(pub)],
    tier: i % 5 === 0 ? 'pro' : 'free',
    access: i % 11 === 0 ? 'entitled' : 'public',
    compat: { agents: { arcotheon: '*' } },
    dependencies: {},
    permissions: i % 3 === 0 ? [{ id: 'fs:read', scope: 'workspace', reason: `Reads the ${a} files you choose.` }] : [],
    contents: { skills: [`${a}-${b}`], tools: i % 2 === 0 ? [`${a}_${b}`] : [], workflows: [], knowledge: [], resources: [] },
    publishedAt: '2026-11-30T12:00:00Z',
    name: `${a} ${b} tool ${i}`,
    summary: `Helps with ${a} and ${b}: ${sentence(i, 6 + (rand(i, 7) % 10))} (${word(i, 3)}, ${word(i, 4)}).`,
    keywords: [a, b, word(i, 5)],
  };
}

let publisherFiles: PublisherFile[] | undefined;

/** One real key per publisher (made once per child, outside the timed build). */
export function publishers(count: number): PublisherFile[] {
  publisherFiles ??= Array.from({ length: publisherCount(count) }, (_, p) => {
    const key = generateKey();
    return { id: `pub-${p}`, name: `Publisher ${p}`, keys: [{ keyId: key.keyId, publicKey: key.publicKey, status: 'active' as const }] };
  });
  return publisherFiles;
}
