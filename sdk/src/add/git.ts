/**
 * git, run as a program (docs/skills.md: no git library): a shallow fetch of one commit into an empty folder.
 * Nothing from the repository runs: the folder is made with no template (so no hooks), no prompt is
 * shown (GIT_TERMINAL_PROMPT=0: a private repository without credentials fails instead of waiting),
 * and the checkout is of plain files. Failures become coded errors naming the URL.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { AdcapError } from '../errors.js';

export interface GitRun {
  stdout: string;
  stderr: string;
}

/** Longest a fetch may take before it is given up (a stalled server). */
const GIT_TIMEOUT_MS = 10 * 60 * 1000;
const COMMIT = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

export function runGit(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<GitRun> {
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    // ssh: never ask about a host key or a passphrase on a terminal the user cannot see.
    GIT_SSH_COMMAND: (options.env ?? process.env).GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    LC_ALL: 'C',
  };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      // No hooks, no file-system monitor, no background maintenance in a folder that lives a few seconds.
      ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.symlinks=true', '-c', 'maintenance.auto=false', ...args],
      { cwd: options.cwd, env, timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ stdout, stderr });
          return;
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(
            new AdcapError('E_RUNTIME_UNSUPPORTED', 'git is not installed (or not on PATH); install git to add skills from a repository.'),
          );
          return;
        }
        reject(Object.assign(error, { stderr }));
      },
    );
  });
}

export interface FetchedCommit {
  commit: string;
}

/**
 * Fetches `ref` (a branch, tag or commit; default the repository's HEAD) of `url` at depth 1 into
 * the empty folder `dir` and checks it out. Returns the commit. E_DOWNLOAD when the repository
 * cannot be reached, does not exist, needs credentials, or lacks the ref.
 */
export async function fetchCommit(url: string, ref: string | undefined, dir: string): Promise<FetchedCommit> {
  await mkdir(dir, { recursive: true });
  await runGit(['init', '-q', '--template=', '.'], { cwd: dir });
  try {
    await runGit(['fetch', '-q', '--depth', '1', '--no-tags', '--', url, ref ?? 'HEAD'], { cwd: dir });
  } catch (error) {
    throw fetchError(url, ref, error);
  }
  await runGit(['checkout', '-q', '--detach', 'FETCH_HEAD'], { cwd: dir }).catch((error: unknown) => {
    throw new AdcapError('E_IO', `Cannot check out ${url} into ${dir}: ${gitMessage(error)}.`, { cause: error });
  });
  const commit = (await runGit(['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim();
  if (ref !== undefined && COMMIT.test(ref) && ref !== commit)
    throw new AdcapError('E_DOWNLOAD', `${url} gave commit ${commit} when asked for ${ref}; nothing was added.`);
  return { commit };
}

export function isCommitId(ref: string): boolean {
  return COMMIT.test(ref);
}

function gitMessage(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text = typeof stderr === 'string' && stderr.trim() !== '' ? stderr : (error as Error).message;
  return (
    text
      .split('\n')
      .map((l) => l.replace(/^(fatal|error):\s*/, '').trim())
      .filter((l) => l !== '')
      .slice(0, 2)
      .join('; ')
      // Never echo credentials a URL may carry.
      .replace(/\/\/[^/@\s]+@/g, '//')
  );
}

function fetchError(url: string, ref: string | undefined, error: unknown): AdcapError {
  if (error instanceof AdcapError) return error;
  const message = gitMessage(error);
  const shown = url.replace(/\/\/[^/@\s]+@/g, '//');
  if (/terminal prompts disabled|could not read Username|Authentication failed|Permission denied \(publickey|403|401/i.test(message)) {
    return new AdcapError(
      'E_DOWNLOAD',
      `${shown} asks for credentials: it is private or does not exist. Set up git's access to it ` +
        '(a credential helper or an SSH key) and run again; nothing was added.',
      { cause: error, details: { url: shown } },
    );
  }
  if (ref !== undefined && /couldn't find remote ref|not our ref|unadvertised object|no such remote ref/i.test(message)) {
    return new AdcapError(
      'E_DOWNLOAD',
      `${shown} has no ${isCommitId(ref) ? 'commit' : 'branch or tag'} ${ref} (any more); ` +
        'if its history was rewritten, add it again without the pinned commit. Nothing was added.',
      { cause: error, details: { url: shown, ref } },
    );
  }
  return new AdcapError('E_DOWNLOAD', `Cannot fetch ${shown}: ${message}. Check the address and your network; nothing was added.`, {
    cause: error,
    details: { url: shown },
  });
}
