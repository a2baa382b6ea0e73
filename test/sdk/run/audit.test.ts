import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, auditDigest, type AuditEvent } from '../../../sdk/src/run/audit.js';
import { exited, spawnTs } from '../../helpers/spawn-ts.js';

const appender = join(import.meta.dirname, '../../fixtures/audit-appender.ts');

function event(name: string): AuditEvent {
  return {
    kind: 'tool',
    capability: 'acme/csv',
    version: '1.0.0',
    manifestSha256: 'a'.repeat(64),
    name,
    inputSha256: auditDigest({ name }),
    outputSha256: auditDigest({ ok: true, ratio: 0.5 }),
    grantsUsed: ['fs:read:workspace'],
    durationMs: 12,
    outcome: 'ok',
  };
}

async function logWith(count: number, months: string[] = ['2026-11-30T10:00:00Z']): Promise<{ dir: string; log: AuditLog }> {
  const dir = await mkdtemp(join(tmpdir(), 'adcap-audit-'));
  const log = new AuditLog(dir);
  for (let i = 0; i < count; i++) await log.append(event(`t${i}`), new Date(months[i % months.length] ?? months[0]!));
  return { dir, log };
}

/** The SHA-256 (hex) of a stored line's bytes, as the next line's prev and the head record it. */
const auditDigestOfLine = (line: string): string => createHash('sha256').update(line).digest('hex');

async function editLines(dir: string, file: string, edit: (lines: string[]) => string[]): Promise<void> {
  const lines = (await readFile(join(dir, file), 'utf8')).split('\n').filter((l) => l !== '');
  await writeFile(
    join(dir, file),
    edit(lines)
      .map((l) => `${l}\n`)
      .join(''),
  );
}

describe('audit log', () => {
  it('chains lines across monthly files and verifies them', async () => {
    const { dir, log } = await logWith(6, ['2026-10-31T23:00:00Z', '2026-10-31T23:30:00Z', '2026-11-01T00:10:00Z']);
    // Appends happen in time order per call, so the months interleave only by the given dates.
    expect((await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort()).toEqual(['2026-10.jsonl', '2026-11.jsonl']);
    await expect(log.verify()).resolves.toMatchObject({ lines: 6 });
  });

  it('records what a run did: digests, grants, outcome and a link to the previous line', async () => {
    const { dir } = await logWith(2);
    const [first, second] = (await readFile(join(dir, '2026-11.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({ seq: 1, prev: '0'.repeat(64), capability: 'acme/csv', grantsUsed: ['fs:read:workspace'], outcome: 'ok' });
    expect(second?.['seq']).toBe(2);
    expect(second?.['prev']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('detects an edited line', async () => {
    const { dir, log } = await logWith(4);
    await editLines(dir, '2026-11.jsonl', (lines) => lines.map((l, i) => (i === 1 ? l.replace('"durationMs":12', '"durationMs":13') : l)));
    await expect(log.verify()).rejects.toMatchObject({ code: 'E_HASH', message: expect.stringContaining('line 3') });
  });

  it('detects a removed line in the middle', async () => {
    const { dir, log } = await logWith(4);
    await editLines(dir, '2026-11.jsonl', (lines) => lines.filter((_, i) => i !== 1));
    await expect(log.verify()).rejects.toMatchObject({ code: 'E_HASH', message: expect.stringContaining('removed') });
  });

  it('detects reordered lines', async () => {
    const { dir, log } = await logWith(4);
    await editLines(dir, '2026-11.jsonl', (lines) => [lines[0]!, lines[2]!, lines[1]!, lines[3]!]);
    await expect(log.verify()).rejects.toMatchObject({ code: 'E_HASH' });
  });

  it('detects lines cut off the end through the head record', async () => {
    const { dir, log } = await logWith(4);
    await editLines(dir, '2026-11.jsonl', (lines) => lines.slice(0, 3));
    await expect(log.verify()).rejects.toMatchObject({ code: 'E_HASH', message: expect.stringContaining('end') });
  });

  it('detects a whole line re-serialised with the same content', async () => {
    const { dir, log } = await logWith(2);
    await editLines(dir, '2026-11.jsonl', (lines) =>
      lines.map((l, i) => (i === 1 ? JSON.stringify(JSON.parse(l), null, 1).replace(/\n/g, '') : l)),
    );
    await expect(log.verify()).rejects.toMatchObject({ code: 'E_HASH' });
  });

  it('keeps one chain when several appends race', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcap-audit-'));
    const log = new AuditLog(dir);
    await Promise.all(Array.from({ length: 12 }, (_, i) => log.append(event(`p${i}`))));
    await expect(log.verify()).resolves.toMatchObject({ lines: 12 });
  });

  it('keeps one chain when two processes append at once, each with several appends in flight', async () => {
    // The CLI and an MCP server may append to the same log: the in-process queue orders a process's
    // own appends, the inter-process lock (taken with synchronous calls) the two processes'.
    const dir = await mkdtemp(join(tmpdir(), 'adcap-audit-'));
    const log = new AuditLog(dir);
    const children = await Promise.all([spawnTs(appender, [dir, '15', 'a']), spawnTs(appender, [dir, '15', 'b'])]);
    await Promise.all(Array.from({ length: 10 }, (_, i) => log.append(event(`here-${i}`))));
    for (const child of children) expect(await exited(child)).toBe(0);
    await expect(log.verify()).resolves.toMatchObject({ lines: 40 });
    const names = (await readFile(join(dir, `${new Date().toISOString().slice(0, 7)}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { name: string }).name);
    expect(names.filter((n) => n.startsWith('a-'))).toHaveLength(15);
    expect(names.filter((n) => n.startsWith('b-'))).toHaveLength(15);
    // Nothing of the lock is left behind.
    expect((await readdir(dir)).filter((n) => n.startsWith('.lock'))).toEqual([]);
  });

  it('writes the head after the line it records, with no temporary file left, and a failed head write leaves none either', async () => {
    const { dir, log } = await logWith(3);
    const head = JSON.parse(await readFile(join(dir, 'head.json'), 'utf8')) as { seq: number; hash: string; file: string };
    const last = (await readFile(join(dir, '2026-11.jsonl'), 'utf8')).trim().split('\n').at(-1) ?? '';
    expect(head).toEqual({ seq: 3, hash: auditDigestOfLine(last), file: '2026-11.jsonl' });
    expect((await readdir(dir)).sort()).toEqual(['2026-11.jsonl', 'head.json']);
    // head.json made a folder: the rename over it fails, the line is written, and no temp file stays.
    await rm(join(dir, 'head.json'));
    await mkdir(join(dir, 'head.json', 'x'), { recursive: true });
    await expect(log.append(event('t3'), new Date('2026-11-30T10:00:00Z'))).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['2026-11.jsonl', 'head.json']);
  });

  it('digests tool data with fractions and any key order the same way', () => {
    expect(auditDigest({ b: 0.25, a: [1, 'x'] })).toBe(auditDigest({ a: [1, 'x'], b: 0.25 }));
    expect(auditDigest({ a: 1 })).not.toBe(auditDigest({ a: 2 }));
  });
});
