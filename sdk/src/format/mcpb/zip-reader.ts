/**
 * Reads an MCP Bundle (`.mcpb`, a zip) as hostile input, with the rules of the tar reader
 * (spec §2, DESIGN §4): every path checked by spec §2's rules (no absolute paths, no `..`, printable
 * ASCII), only regular files (symbolic links and other special entries are refused, directories
 * are implied), no duplicates, at most 20,000 entries and 512 MiB expanded — counted on the bytes
 * actually inflated while streaming, so an entry that lies about its size is stopped as soon as it
 * passes the limit (and yauzl stops one that passes its declared size). Nothing is written to disk
 * here: the caller gets the files in memory.
 *
 * yauzl reads the central directory and inflates each entry on demand; names are taken as raw
 * bytes (decodeStrings: false) so this module, not the library, judges them.
 */
import yauzl from 'yauzl';
import { AdcapError, asAdcapError, isAdcapError } from '../../errors.js';
import { checkEntryPath } from '../archive/entry-path.js';
import { resolveLimits, type ArchiveLimits } from '../archive/limits.js';

export interface ZipFileEntry {
  path: string;
  data: Buffer;
  /** The entry's Unix mode had an execute bit. */
  executable: boolean;
}

/** Unix file types in the upper 16 bits of a zip entry's external attributes (made on Unix). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function zipError(file: string, problem: string, cause?: unknown): AdcapError {
  return new AdcapError('E_TAR', `The MCP Bundle ${file} is not a readable zip archive (${problem}); get a fresh copy of it.`, {
    ...(cause === undefined ? {} : { cause }),
    details: { path: file },
  });
}

function open(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: true }, (error, zip) => {
      if (error !== null) reject(zipError(file, error.message, error));
      else resolve(zip);
    });
  });
}

/** Reads every file entry of the zip `file` (in central-directory order), enforcing the reader's limits. */
export async function readZipEntries(file: string, limits?: Partial<ArchiveLimits>): Promise<ZipFileEntry[]> {
  const limit = resolveLimits(limits);
  const zip = await open(file);
  if (zip.entryCount > limit.maxEntries) {
    zip.close();
    throw new AdcapError('E_LIMIT', `The MCP Bundle ${file} has ${zip.entryCount} entries, more than the limit of ${limit.maxEntries}.`, {
      details: { limit: limit.maxEntries },
    });
  }
  const entries: ZipFileEntry[] = [];
  const seen = new Set<string>();
  let expanded = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown): void => {
        zip.close();
        reject(error);
      };
      zip.on('error', (error: Error) => fail(isAdcapError(error) ? error : zipError(file, error.message, error)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          const raw = entry.fileName as unknown as Buffer;
          const isDirectoryName = raw.length > 0 && raw[raw.length - 1] === 0x2f;
          const path = checkEntryPath(isDirectoryName ? raw.subarray(0, raw.length - 1) : raw);
          const madeOnUnix = entry.versionMadeBy >>> 8 === 3;
          const mode = madeOnUnix ? entry.externalFileAttributes >>> 16 : 0;
          const type = mode & S_IFMT;
          if (type === S_IFLNK || (type !== 0 && type !== S_IFREG && type !== S_IFDIR)) {
            throw new AdcapError(
              'E_ENTRY_TYPE',
              `The MCP Bundle ${file} holds ${JSON.stringify(path)}, ` +
                `which is ${type === S_IFLNK ? 'a symbolic link' : 'not a regular file'}; ` +
                'a bundle may hold regular files only, so it is refused.',
              { details: { path } },
            );
          }
          if (isDirectoryName || type === S_IFDIR) {
            zip.readEntry(); // directories are implied (spec §2)
            return;
          }
          if ((entry.generalPurposeBitFlag & 0x1) !== 0) {
            throw new AdcapError(
              'E_ENTRY_TYPE',
              `The MCP Bundle ${file} holds the encrypted entry ${JSON.stringify(path)}, which cannot be read.`,
              {
                details: { path },
              },
            );
          }
          if (seen.has(path)) {
            throw new AdcapError('E_DUPLICATE', `The MCP Bundle ${file} holds ${JSON.stringify(path)} twice.`, { details: { path } });
          }
          seen.add(path);
          if (expanded + entry.uncompressedSize > limit.maxExpandedBytes) throw tooLarge(file, limit);
          const data = await readEntry(zip, entry);
          expanded += data.length;
          entries.push({ path, data, executable: (mode & 0o111) !== 0 });
          zip.readEntry();
        })().catch(fail);
      });
      // The bytes inflated, counted as they come: the declared sizes are the archive's claim only.
      let budgetUsed = 0;
      const readEntry = (z: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> =>
        new Promise((resolveEntry, rejectEntry) => {
          z.openReadStream(entry, (error, stream) => {
            if (error !== null) {
              rejectEntry(zipError(file, error.message, error));
              return;
            }
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => {
              budgetUsed += chunk.length;
              if (expanded + budgetUsed > limit.maxExpandedBytes) {
                stream.destroy();
                rejectEntry(tooLarge(file, limit));
                return;
              }
              chunks.push(chunk);
            });
            stream.on('error', (streamError: Error) => rejectEntry(zipError(file, streamError.message, streamError)));
            stream.on('end', () => {
              budgetUsed = 0;
              resolveEntry(Buffer.concat(chunks));
            });
          });
        });
      zip.readEntry();
    });
  } catch (error) {
    throw asAdcapError(error, `Reading the MCP Bundle ${file} failed`);
  }
  return entries;
}

function tooLarge(file: string, limit: ArchiveLimits): AdcapError {
  return new AdcapError(
    'E_LIMIT',
    `The MCP Bundle ${file} expands to more than ${limit.maxExpandedBytes} bytes, the reader's limit; ` +
      'it is refused (a zip bomb, or too large to import).',
    { details: { limit: limit.maxExpandedBytes } },
  );
}
