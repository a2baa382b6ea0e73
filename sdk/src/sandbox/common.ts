/**
 * Pieces every sandbox implementation shares: the minimal environment (DESIGN §5 env:read), the
 * interpreter's install prefix, program lookup on PATH.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxGrants, SandboxSpec } from './sandbox.js';

export const SAFE_PATH = '/usr/local/bin:/usr/bin:/bin';

/** True when `child` is `parent` or lies below it. */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * DESIGN §5 (env:read): the environment is cleared; the tool gets PATH, LANG, HOME, TMPDIR and
 * only the variables it was granted, with their values from `spec.env`.
 */
export function sandboxEnv(
  spec: SandboxSpec,
  grants: SandboxGrants,
  overrides: { home: string; tmp: string; pathDirs?: string[] },
): Record<string, string> {
  const lang = spec.env.LANG;
  const env: Record<string, string> = {
    PATH: [...new Set([...(overrides.pathDirs ?? []), ...SAFE_PATH.split(':')])].join(':'),
    LANG: lang !== undefined && /^[A-Za-z0-9_.@-]+$/.test(lang) ? lang : 'C.UTF-8',
    HOME: overrides.home,
    TMPDIR: overrides.tmp,
  };
  for (const name of grants.envNames) {
    const value = spec.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Resolves a program name on `searchPath` like execvp does; absolute names are taken as they are. */
export function findProgram(program: string, searchPath: string): string | null {
  const candidates = program.includes('/')
    ? [program]
    : searchPath
        .split(':')
        .filter((d) => path.isAbsolute(d))
        .map((d) => path.join(d, program));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/**
 * What to expose so `command` can run: its real path and, when it sits in `<prefix>/bin/`, the
 * install prefix (python needs `<prefix>/lib/python3.x`; node is self-contained but its prefix is
 * small). A prefix that would expose `/` or the user's home as a whole is not used; then only
 * the executable is exposed.
 */
export function executableExposure(command: string, home: string): { command: string; real: string; prefix: string | null } {
  const real = fs.realpathSync.native(command);
  const dir = path.dirname(real);
  let prefix: string | null = path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
  const realHome = safeRealpath(home);
  if (prefix === '/' || isInside(home, prefix) || (realHome !== null && isInside(realHome, prefix))) prefix = null;
  return { command, real, prefix };
}

/** Folders under an install prefix that hold a program's shared libraries and helpers. */
const LIBRARY_DIRS = ['lib', 'lib64', 'libexec'];

/**
 * What to expose for a program granted with `process:exec`: its executable
 * (the real file, and the path as called when that is a link) and nothing else of the folder it
 * sits in, which for `~/.cargo/bin` or `~/.local/bin` is next to credentials and keyrings. A
 * program installed outside the home and outside /usr (e.g. /opt/tool/bin/tool) also gets its
 * prefix's library folders (`lib`, `lib64`, `libexec`), never one under or containing the home.
 * Everything under /usr is visible to every tool anyway.
 */
export function programExposure(command: string, home: string): { command: string; real: string; libraryDirs: string[] } {
  const real = fs.realpathSync.native(command);
  const dir = path.dirname(real);
  const libraryDirs: string[] = [];
  if (path.basename(dir) === 'bin') {
    const prefix = path.dirname(dir);
    const homes = [path.resolve(home), safeRealpath(home)].filter((h): h is string => h !== null);
    const nearHome = homes.some((h) => isInside(prefix, h) || isInside(h, prefix));
    if (prefix !== '/' && !isInside(prefix, '/usr') && !nearHome) {
      for (const name of LIBRARY_DIRS) {
        const lib = path.join(prefix, name);
        const realLib = safeRealpath(lib);
        if (realLib !== null && !homes.some((h) => isInside(realLib, h) || isInside(h, realLib))) libraryDirs.push(realLib);
      }
    }
  }
  return { command, real, libraryDirs };
}

/**
 * The real path of `p` (every link resolved), or null when it does not exist. realpathSync.native
 * (the C library's realpath) throughout this module: the same answer as fs.realpathSync's walk in
 * JavaScript, which lstats every component of every path, and a tool run plans dozens of paths.
 */
export function safeRealpath(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

/**
 * The real path of `p`, or of its nearest existing ancestor when `p` does not exist yet: what
 * must stay read-only so that `p` cannot be created or changed.
 */
export function existingRealPath(p: string): string {
  let current = path.resolve(p);
  for (;;) {
    const real = safeRealpath(current);
    if (real !== null) return real;
    const parent = path.dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}
