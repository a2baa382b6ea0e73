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
export function sandboxEnv(spec: SandboxSpec, grants: SandboxGrants, overrides: { home: string; tmp: string; pathDirs?: string[] }): Record<string, string> {
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
  const candidates = program.includes('/') ? [program] : searchPath.split(':').filter((d) => path.isAbsolute(d)).map((d) => path.join(d, program));
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
  const real = fs.realpathSync(command);
  const dir = path.dirname(real);
  let prefix: string | null = path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
  const realHome = safeRealpath(home);
  if (prefix === '/' || isInside(home, prefix) || (realHome !== null && isInside(realHome, prefix))) prefix = null;
  return { command, real, prefix };
}

export function safeRealpath(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}
