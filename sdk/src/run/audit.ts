import { appendFileSync, closeSync, constants, fsync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AdcapError } from '../errors.js';
import { canonicalJson } from '../format/canonical-json.js';
import { fsyncDir, tempPathFor } from '../util/fs-atomic.js';
import { sha256Hex } from '../util/hash.js';
import { withLock } from '../util/lock.js';

/**
 * The audit log.
 * Every tool and workflow run appends one JSON line to home/audit/<yyyy-mm>.jsonl. Each line holds
 * a sequence number and the SHA-256 of the previous line's bytes, so editing, removing or
 * reordering any line breaks the chain; `head.json` records the last sequence and hash, so cutting
 * lines off the end is detected too.
 */
export interface AuditEvent {
  /** Whether a tool or a workflow ran. */
  kind: 'tool' | 'workflow';
  /** The capability's id. */
  capability: string;
  /** The installed version that ran. */
  version: string;
  /** The SHA-256 (hex) of that version's canonical manifest. */
  manifestSha256: string;
  /** Tool name, or workflow id. */
  name: string;
  /** The SHA-256 (hex) of the input's canonical JSON; the input itself is never logged. */
  inputSha256: string;
  /** The SHA-256 (hex) of the output's canonical JSON; null when the run failed. */
  outputSha256: string | null;
  /** The grants the run had, as `id[:scope]` strings. */
  grantsUsed: string[];
  /** How long the run took, in milliseconds. */
  durationMs: number;
  /** Whether the run succeeded. */
  outcome: 'ok' | 'error';
  /** The AdcapError code of a failed run. */
  errorCode?: string;
}

/** One line of the audit log as stored: the event with its sequence number, time and the hash chaining it to the line before. */
export interface AuditLine extends AuditEvent {
  /** The line's sequence number, 1 for the first line of the home, one more for each line after. */
  seq: number;
  /** When the line was written (ISO 8601, UTC). */
  time: string;
  /** The SHA-256 (hex) of the previous line's bytes; 64 zeros for the first line. */
  prev: string;
}

interface AuditHead {
  seq: number;
  hash: string;
  file: string;
}

const GENESIS = '0'.repeat(64);

const fsyncFd = promisify(fsync);

/**
 * The appends of this process, per audit folder, one after the other: a run waits here for the
 * one before it instead of polling the inter-process lock, which it still takes (the CLI and a
 * server may append to the same log).
 */
const appendsInProcess = new Map<string, Promise<unknown>>();

/** The hash-chained audit log of tool and workflow runs (`home/audit/<yyyy-mm>.jsonl`, DESIGN §6): append and verify. */
export class AuditLog {
  constructor(private readonly dir: string) {}

  private get headFile(): string {
    return join(this.dir, 'head.json');
  }

  /** Appends one event under the audit lock; returns the line as written. */
  async append(event: AuditEvent, now: Date = new Date()): Promise<AuditLine> {
    const before = appendsInProcess.get(this.dir) ?? Promise.resolve();
    const appended = before.catch(() => undefined).then(() => this.appendLocked(event, now));
    const settled = appended.catch(() => undefined);
    appendsInProcess.set(this.dir, settled);
    void settled.then(() => {
      if (appendsInProcess.get(this.dir) === settled) appendsInProcess.delete(this.dir);
    });
    return appended;
  }

  private async appendLocked(event: AuditEvent, now: Date): Promise<AuditLine> {
    // withLock makes the folder (the lock's parent) when it does not exist yet. The lock and the
    // small reads and writes below are synchronous calls (metadata and page-cache writes that return
    // at once; each promise would cost a thread-pool round trip); only the waits for the disk are not.
    return withLock(
      join(this.dir, '.lock'),
      'audit append',
      async () => {
        const head = await this.readHead();
        const line: AuditLine = { ...event, seq: head.seq + 1, time: now.toISOString(), prev: head.hash };
        const text = canonicalJson(line);
        // Never an earlier file than the last line's, even if the clock went back: the chain is read
        // in file-name order.
        const month = `${now.toISOString().slice(0, 7)}.jsonl`;
        const file = head.file !== '' && head.file > month ? head.file : month;
        // The new head is written as writeJsonAtomic writes (a temp file beside it, fsynced, renamed
        // over it, the folder fsynced), but its temp file is made durable together with the line:
        // one wait for the disk instead of two. It is renamed into place only once both are, so the
        // head never records a line that a crash could lose.
        const next: AuditHead = { seq: line.seq, hash: sha256Hex(text), file };
        const temp = tempPathFor(this.headFile);
        const fd = openSync(join(this.dir, file), 'a');
        try {
          appendFileSync(fd, `${text}\n`);
          // Both settle before anything else happens (a failed one leaves no write behind the rm below).
          const settled = await Promise.allSettled([fsyncFd(fd), writeDurable(temp, `${JSON.stringify(next, null, 2)}\n`)]);
          for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
          renameSync(temp, this.headFile);
        } catch (error) {
          try {
            rmSync(temp, { force: true });
          } catch {
            // the error that brought us here is the one to report
          }
          throw error;
        } finally {
          closeSync(fd);
        }
        await fsyncDir(this.dir);
        return line;
      },
      { what: 'The audit log', syncFs: true },
    );
  }

  private async readHead(): Promise<AuditHead> {
    try {
      return JSON.parse(readFileSync(this.headFile, 'utf8')) as AuditHead;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // No head yet: either a new log, or a head lost in a crash right after a line was appended.
      const lines = await this.readAllLines();
      const last = lines.at(-1);
      return last === undefined ? { seq: 0, hash: GENESIS, file: '' } : { seq: last.seq, hash: sha256Hex(last.text), file: last.file };
    }
  }

  private async readAllLines(): Promise<Array<{ file: string; lineNo: number; text: string; seq: number; prev: string }>> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => /^\d{4}-\d{2}\.jsonl$/.test(n)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const out: Array<{ file: string; lineNo: number; text: string; seq: number; prev: string }> = [];
    for (const file of names) {
      const content = await readFile(join(this.dir, file), 'utf8');
      const lines = content.split('\n');
      if (lines.at(-1) === '') lines.pop();
      lines.forEach((text, index) => {
        let parsed: { seq?: unknown; prev?: unknown };
        try {
          parsed = JSON.parse(text) as { seq?: unknown; prev?: unknown };
        } catch {
          parsed = {};
        }
        out.push({
          file,
          lineNo: index + 1,
          text,
          seq: typeof parsed.seq === 'number' ? parsed.seq : -1,
          prev: typeof parsed.prev === 'string' ? parsed.prev : '',
        });
      });
    }
    return out;
  }

  /**
   * Checks the whole chain. Returns the number of lines verified, or throws E_HASH naming the
   * first line that was edited, removed, inserted or moved.
   */
  async verify(): Promise<{ lines: number; head: string }> {
    const lines = await this.readAllLines();
    let expectedPrev = GENESIS;
    let expectedSeq = 1;
    for (const line of lines) {
      const where = `${line.file} line ${line.lineNo}`;
      if (line.seq !== expectedSeq) {
        throw tampered(`${where} has sequence ${line.seq} where ${expectedSeq} was expected, so a line was removed, inserted or moved`);
      }
      if (line.prev !== expectedPrev) {
        throw tampered(`${where} does not follow the line before it, so that line was edited or the order changed`);
      }
      if (canonicalOrNull(line.text) !== line.text) throw tampered(`${where} is not in canonical form, so it was edited`);
      expectedPrev = sha256Hex(line.text);
      expectedSeq++;
    }
    let head: AuditHead | null = null;
    try {
      head = JSON.parse(await readFile(this.headFile, 'utf8')) as AuditHead;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (head !== null && (head.seq !== expectedSeq - 1 || head.hash !== expectedPrev)) {
      throw tampered(
        `the log ends at line ${expectedSeq - 1} but its head records ${head.seq} lines, ` +
          'so lines were removed from the end or the head was edited',
      );
    }
    return { lines: lines.length, head: expectedPrev };
  }
}

/** Writes `data` to the new file `path` (O_EXCL, mode 0644) and fsyncs it. */
async function writeDurable(path: string, data: string): Promise<void> {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    writeFileSync(fd, data);
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

function canonicalOrNull(text: string): string | null {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return null;
  }
}

function tampered(problem: string): AdcapError {
  // E_HASH: a recorded SHA-256 no longer matches what it pins, as for a package entry (DESIGN §9).
  return new AdcapError('E_HASH', `The audit log was changed: ${problem}.`, { details: { problem } });
}

/**
 * The SHA-256 recorded for a tool's input or output: of its JSON with sorted keys. Unlike signed
 * data, tool data may hold fractions, so this is canonical JSON's key order without its integer rule.
 */
export function auditDigest(value: unknown): string {
  return sha256Hex(sortedJson(value));
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => sortedJson(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
