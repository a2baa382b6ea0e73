/**
 * What the page may never name directly: folders and files on this computer.
 *
 * - Workspaces: the browser has no folder picker that yields a path, so the user types a folder
 *   and confirms it; `confirm` checks it here (absolute, exists, a directory after resolving
 *   links, not inside or around the Arcotheon home, not the filesystem root, not the user's whole
 *   home folder nor a credential folder in it) and returns an unguessable
 *   handle. Runs take handles only, so page script cannot point a tool at a path the user never
 *   confirmed. (Electron will create the same handles from the native folder dialog.)
 * - Sideloads: the bytes of a file the user picked (a `.adcap` package or a `.mcpb` MCP Bundle),
 *   sent in capped chunks, written to a private scratch folder, then referred to by a handle.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, realpath, rm, stat, type FileHandle } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, isAbsolute, join, parse, relative, sep } from 'node:path';
import { AdcapError } from '@arcotheon/sdk';
import { reasonError } from '@arcotheon/sdk/internal';
import type { SideloadFile, SideloadUpload, WorkspaceHandle } from '../common/types.js';

const newHandle = (prefix: string): string => `${prefix}_${randomBytes(18).toString('base64url')}`;

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Folders under the user's home that hold credentials (SECURITY.md): never a workspace, nor anything inside. */
const SECRET_FOLDERS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.password-store',
  '.netrc',
  '.config/gcloud',
  '.local/share/keyrings',
];

export class Workspaces {
  private readonly byHandle = new Map<string, WorkspaceHandle>();

  constructor(
    private readonly home: string,
    /** The user's home folder: it, and the credential folders in it, are never workspaces. */
    private readonly userHome: string = homedir(),
  ) {}

  async confirm(path: string): Promise<WorkspaceHandle> {
    if (!isAbsolute(path)) throw reasonError('workspace-not-absolute', { path: path.slice(0, 200) });
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      throw new AdcapError('E_NOT_FOUND', `The folder "${path.slice(0, 200)}" does not exist; create it first or check the spelling.`);
    }
    const info = await stat(real);
    if (!info.isDirectory())
      throw new AdcapError('E_USAGE', `"${path.slice(0, 200)}" is a file, not a folder; choose the folder that contains it.`);
    if (parse(real).root === real) throw new AdcapError('E_USAGE', 'The whole filesystem cannot be a workspace; choose a project folder.');
    const user = await realpath(this.userHome).catch(() => this.userHome);
    if (real === user)
      throw new AdcapError(
        'E_USAGE',
        `Your whole home folder (${user}) cannot be a workspace: tools given it could ` +
          'read your keys and change your settings. Choose a project folder inside it.',
      );
    const secret = SECRET_FOLDERS.find((dir) => isInside(join(user, dir), real));
    if (secret !== undefined)
      throw new AdcapError(
        'E_USAGE',
        `"${real}" is inside ~/${secret}, where credentials and keys live; it cannot be a workspace. Choose a project folder.`,
      );
    const home = await realpath(this.home).catch(() => this.home);
    if (isInside(home, real) || isInside(real, home)) {
      throw new AdcapError(
        'E_USAGE',
        `"${real}" ${isInside(home, real) ? 'is inside' : 'contains'} the Arcotheon home (${home}); ` +
          'tools may not work there. Choose a project folder elsewhere.',
      );
    }
    for (const known of this.byHandle.values()) if (known.path === real) return known;
    const workspace: WorkspaceHandle = { handle: newHandle('ws'), path: real, name: basename(real) };
    this.byHandle.set(workspace.handle, workspace);
    return workspace;
  }

  list(): WorkspaceHandle[] {
    return [...this.byHandle.values()];
  }

  forget(handle: string): void {
    if (!this.byHandle.delete(handle))
      throw new AdcapError('E_NOT_FOUND', 'That workspace is not known (it may have been forgotten); confirm the folder again.');
  }

  /** The folder behind a handle, checked again (it may have been removed or replaced by a link since). */
  async resolve(handle: string | null | undefined): Promise<string | null> {
    if (handle === null || handle === undefined) return null;
    const workspace = this.byHandle.get(handle);
    if (workspace === undefined)
      throw new AdcapError(
        'E_USAGE',
        'The workspace handle is not known to this host; choose the folder again (handles last until the host restarts).',
      );
    const again = await this.confirm(workspace.path).catch((error: unknown) => {
      throw error instanceof AdcapError ? new AdcapError(error.code, `The workspace changed since it was chosen: ${error.message}`) : error;
    });
    return again.path;
  }
}

interface Upload {
  name: string;
  size: number;
  received: number;
  file: string;
  handle: FileHandle;
  hash: ReturnType<typeof createHash>;
}

export const DEFAULT_MAX_SIDELOAD_BYTES = 64 * 1024 * 1024;
/** Uploads open at once; more is refused (a page cannot fill the disk with abandoned uploads). */
const MAX_OPEN_UPLOADS = 4;

export class Sideloads {
  private readonly uploads = new Map<string, Upload>();
  private readonly files = new Map<string, SideloadFile & { path: string }>();
  private scratch: Promise<string> | undefined;

  constructor(
    readonly maxBytes: number,
    readonly chunkBytes: number,
  ) {}

  private dir(): Promise<string> {
    this.scratch ??= mkdtemp(join(tmpdir(), 'arcotheon-sideload-'));
    return this.scratch;
  }

  async begin(name: string, size: number): Promise<SideloadUpload> {
    if (size > this.maxBytes)
      throw new AdcapError(
        'E_LIMIT',
        `"${name.slice(0, 100)}" is ${size} bytes; files up to ${this.maxBytes} ` +
          'bytes can be sideloaded here (use "adcap install <file>" for larger ones).',
      );
    if (this.uploads.size >= MAX_OPEN_UPLOADS)
      throw new AdcapError('E_LIMIT', `${MAX_OPEN_UPLOADS} uploads are already open; finish or abort one first.`);
    const upload = newHandle('up');
    const file = join(await this.dir(), `${upload}.adcap`);
    const handle = await open(file, 'wx', 0o600);
    this.uploads.set(upload, { name, size, received: 0, file, handle, hash: createHash('sha256') });
    return { upload, maxBytes: this.maxBytes, chunkBytes: this.chunkBytes };
  }

  async chunk(upload: string, offset: number, base64: string): Promise<{ received: number }> {
    const entry = this.upload(upload);
    if (offset !== entry.received)
      throw new AdcapError('E_USAGE', `Chunks must arrive in order: expected offset ${entry.received}, got ${offset}.`);
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length > this.chunkBytes) {
      await this.abort(upload);
      throw new AdcapError('E_LIMIT', `A chunk may carry at most ${this.chunkBytes} bytes; the upload was dropped.`);
    }
    if (entry.received + bytes.length > entry.size || entry.received + bytes.length > this.maxBytes) {
      await this.abort(upload);
      throw new AdcapError('E_LIMIT', `More bytes arrived than the ${entry.size} announced; the upload was dropped.`);
    }
    await entry.handle.write(bytes);
    entry.hash.update(bytes);
    entry.received += bytes.length;
    return { received: entry.received };
  }

  async commit(upload: string): Promise<SideloadFile> {
    const entry = this.upload(upload);
    if (entry.received !== entry.size)
      throw new AdcapError('E_USAGE', `Only ${entry.received} of ${entry.size} bytes arrived; send the rest before committing.`);
    this.uploads.delete(upload);
    await entry.handle.close();
    const file = newHandle('sl');
    const done = { file, name: entry.name, size: entry.size, sha256: entry.hash.digest('hex'), path: entry.file };
    this.files.set(file, done);
    const { path: _path, ...view } = done;
    return view;
  }

  async abort(upload: string): Promise<void> {
    const entry = this.upload(upload);
    this.uploads.delete(upload);
    await entry.handle.close().catch(() => undefined);
    await rm(entry.file, { force: true });
  }

  /** The file behind a sideload handle. */
  path(file: string): string {
    return this.get(file).path;
  }

  /** The name the user's file had (for "added by you from <name>"; never a path on this computer). */
  name(file: string): string {
    return this.get(file).name;
  }

  private get(file: string): SideloadFile & { path: string } {
    const found = this.files.get(file);
    if (found === undefined) throw new AdcapError('E_USAGE', 'The sideloaded file is not known to this host; pick the file again.');
    return found;
  }

  async close(): Promise<void> {
    for (const upload of [...this.uploads.keys()]) await this.abort(upload).catch(() => undefined);
    if (this.scratch !== undefined) await rm(await this.scratch, { recursive: true, force: true });
  }

  private upload(upload: string): Upload {
    const entry = this.uploads.get(upload);
    if (entry === undefined)
      throw new AdcapError('E_NOT_FOUND', 'That upload is not open (it finished, was aborted or dropped); start again.');
    return entry;
  }
}
