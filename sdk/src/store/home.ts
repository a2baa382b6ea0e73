import { join } from 'node:path';
import { parseCapabilityId } from '../registry/layout.js';

/**
 * Paths of the home directory (DESIGN §6). One object knows the layout, so no other module
 * builds a home path by hand.
 *
 *   config.json                      remotes and settings
 *   remotes/<name>/catalog.json      last verified catalogue
 *   packages/<pub>/<name>/<version>/ verified, extracted, read-only install
 *   packages/<pub>/<name>/state.json active version, history, grants
 *   cache/sha256/<2>/<64>            content-addressed blobs
 *   tooldata/<pub>/<name>/<tool>/    storage:data
 *   audit/<yyyy-mm>.jsonl            hash-chained run log
 *   locks/                           inter-process locks
 *   journal/<op>.json                intent records of operations in flight (for doctor)
 *   links.json                       skill links Arcotheon made in agents' folders
 *   sandbox-probe.json               a bubblewrap probe that succeeded, and the machine facts it holds for
 *   fingerprints/<pub>/<name>/<version>.json  stat fingerprints of installed files (file-fingerprints.ts)
 *                                             and the SHA-256 of the capability.json that passed its full check
 */
export class HomeLayout {
  constructor(readonly root: string) {}

  get config(): string {
    return join(this.root, 'config.json');
  }
  get packagesDir(): string {
    return join(this.root, 'packages');
  }
  get cacheDir(): string {
    return join(this.root, 'cache');
  }
  get auditDir(): string {
    return join(this.root, 'audit');
  }
  get locksDir(): string {
    return join(this.root, 'locks');
  }
  get homeLock(): string {
    return join(this.locksDir, 'home.lock');
  }
  get journalDir(): string {
    return join(this.root, 'journal');
  }
  get linksFile(): string {
    return join(this.root, 'links.json');
  }
  /** `home/sandbox-probe.json`: the bubblewrap probe that succeeded, with what it depended on (DESIGN §6). */
  get sandboxProbeFile(): string {
    return join(this.root, 'sandbox-probe.json');
  }
  /** `home/runtimes-probe.json`: interpreter versions found, each with the program it came from (DESIGN §6). */
  get runtimesProbeFile(): string {
    return join(this.root, 'runtimes-probe.json');
  }
  remoteDir(name: string): string {
    return join(this.root, 'remotes', name);
  }
  packageDir(id: string): string {
    const { publisher, name } = parseCapabilityId(id);
    return join(this.packagesDir, publisher, name);
  }
  versionDir(id: string, version: string): string {
    return join(this.packageDir(id), version);
  }
  stateFile(id: string): string {
    return join(this.packageDir(id), 'state.json');
  }
  fingerprintFile(id: string, version: string): string {
    const { publisher, name } = parseCapabilityId(id);
    return join(this.root, 'fingerprints', publisher, name, `${version}.json`);
  }
  toolDataDir(id: string, tool: string): string {
    const { publisher, name } = parseCapabilityId(id);
    return join(this.root, 'tooldata', publisher, name, tool);
  }
}
