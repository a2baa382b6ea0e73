/**
 * The Settings screen: registries (their pinned keys and when their catalogue was last
 * verified), the audit log and its hash chain, the content cache, and the sandbox per platform.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AdcapError,
  addRemote,
  AuditLog,
  BubblewrapSandbox,
  hostPlatform,
  isAdcapError,
  keyIdOf,
  listRemotes,
  removeRemote,
  SandboxExecSandbox,
  type Arcotheon,
  type ErrorCode,
} from '@arcotheon/sdk';
import { errorReason, hostStore, surfaceMessage, uiNextStep, type HostStore } from '@arcotheon/sdk/internal';
import type {
  AuditEntry,
  AuditVerification,
  CacheInfo,
  HostError,
  HostInfoData,
  RemoteConfigData,
  RemoteStatus,
  SandboxPlatformStatus,
  SandboxStatus,
} from '../common/types.js';
import type { OperationContext } from './operations.js';
import { directorySize } from './views.js';

export class Settings {
  private readonly store: HostStore;

  constructor(private readonly arc: Arcotheon) {
    this.store = hostStore(arc);
  }

  hostInfo(appVersion: string, limits: HostInfoData['limits']): HostInfoData {
    // The SDK's package.json as Node resolves the package, read as data (the layer rules see only imports).
    const sdk = JSON.parse(readFileSync(new URL(import.meta.resolve('@arcotheon/sdk/package.json')), 'utf8')) as { version: string };
    return { appVersion, sdkVersion: sdk.version, home: this.store.homeDir, platform: hostPlatform(), limits };
  }

  /**
   * Each remote's status from its last attempt (DESIGN §10): verified when the last fetch verified
   * and the stored catalogue is usable; failed when the last attempt failed (the catalogue shown is
   * the older one, `lastVerifiedAt`); refused when the stored catalogue can no longer be used; and
   * unread when nothing was tried yet (a fresh home: not an error, it is read on first use).
   */
  async remoteStatus(): Promise<RemoteStatus[]> {
    const configured = new Set((await listRemotes(this.store.homeDir)).map((r) => r.name));
    const out: RemoteStatus[] = [];
    for (const client of await this.store.clients()) {
      const remote = client.remote;
      const status: RemoteStatus = {
        name: remote.name,
        url: remote.url,
        rootKeys: [...remote.rootKeys],
        rootKeyIds: remote.rootKeys.map((k) => {
          try {
            return keyIdOf(k);
          } catch {
            return 'invalid key';
          }
        }),
        builtIn: !configured.has(remote.name),
        state: 'verified',
        lastAttemptAt: null,
        lastVerifiedAt: null,
        sequence: null,
        generatedAt: null,
        capabilities: null,
        error: null,
      };
      let refused: HostError | null = null;
      let unread = false;
      try {
        const catalogue = await client.catalogue({ refresh: 'never' });
        status.lastVerifiedAt = catalogue.checkedAt;
        status.sequence = catalogue.payload.sequence;
        status.generatedAt = catalogue.payload.generatedAt;
        status.capabilities = catalogue.capabilityCount;
      } catch (error) {
        if (!isAdcapError(error)) throw error;
        if (errorReason(error) === 'remote-never-read') unread = true;
        else refused = uiError(error);
      }
      // Read after the catalogue: reading a registry on this computer for the first time is an attempt too.
      const attempt = await client.lastAttempt();
      status.lastAttemptAt = attempt?.at ?? null;
      if (attempt !== null && !attempt.ok && attempt.error !== undefined) {
        status.state = 'failed';
        status.error = uiError(
          new AdcapError(attempt.error.code as ErrorCode, attempt.error.message, { details: attempt.error.details ?? {} }),
        );
      } else if (refused !== null) {
        status.state = 'refused';
        status.error = refused;
      } else if (unread) {
        status.state = 'unread';
      }
      out.push(status);
    }
    return out;
  }

  /**
   * Adds a remote and verifies its catalogue against the pinned key at once. A catalogue the key
   * does not verify (a wrong key, a hostile server) removes the remote again and reports why; a
   * registry that cannot be reached stays added (it is checked again on refresh).
   */
  async addRemote(name: string, url: string, rootKeys: string[]): Promise<RemoteConfigData> {
    const added = await addRemote(this.store.homeDir, { name, url, rootKeys });
    try {
      await (await this.store.client(name)).update();
    } catch (error) {
      if (!isAdcapError(error) || error.code !== 'E_DOWNLOAD') {
        await removeRemote(this.store.homeDir, name).catch(() => undefined);
        throw error;
      }
    }
    return added;
  }

  async removeRemote(name: string): Promise<void> {
    await removeRemote(this.store.homeDir, name);
  }

  /**
   * Fetches and verifies catalogues now. A registry that cannot be reached keeps its last verified
   * catalogue, and one that serves something its keys do not verify (an attack, a broken registry)
   * is never believed: either way its status carries the error, so the UI can say so.
   */
  async refresh(name: string | null, ctx: OperationContext): Promise<RemoteStatus[]> {
    const clients = (await this.store.clients()).filter((c) => name === null || c.remote.name === name);
    if (name !== null && clients.length === 0) await this.store.client(name);
    const failures = new Map<string, RemoteStatus['error']>();
    let done = 0;
    for (const client of clients) {
      ctx.progress({ phase: 'refresh', done, total: clients.length, item: client.remote.name });
      try {
        await client.update({ signal: ctx.signal });
      } catch (error) {
        if (!isAdcapError(error)) throw error;
        failures.set(client.remote.name, uiError(error));
      }
      done++;
    }
    ctx.progress({ phase: 'refresh', done, total: clients.length });
    return (await this.remoteStatus())
      .filter((s) => name === null || s.name === name)
      .map((s) =>
        failures.has(s.name) ? { ...s, state: s.state === 'refused' ? s.state : 'failed', error: failures.get(s.name) ?? null } : s,
      );
  }

  /** The audit log, newest first. Lines are the host's own writing; a line that does not parse is shown as such. */
  async auditList(options: { limit?: number; capability?: string }): Promise<AuditEntry[]> {
    const dir = this.store.auditDir;
    const files = (await readdir(dir).catch(() => [] as string[]))
      .filter((n) => /^\d{4}-\d{2}\.jsonl$/.test(n))
      .sort()
      .reverse();
    const limit = options.limit ?? 200;
    const out: AuditEntry[] = [];
    for (const file of files) {
      const lines = (await readFile(join(dir, file), 'utf8'))
        .split('\n')
        .filter((l) => l !== '')
        .reverse();
      for (const text of lines) {
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          line = { kind: 'unreadable' };
        }
        const str = (key: string): string | undefined => (typeof line[key] === 'string' ? (line[key] as string) : undefined);
        if (options.capability !== undefined && str('capability') !== options.capability) continue;
        const kind = str('kind') ?? 'unknown';
        const entry: AuditEntry = {
          seq: typeof line['seq'] === 'number' ? line['seq'] : -1,
          time: str('time') ?? '',
          event: kind,
          data: line,
        };
        const capability = str('capability');
        if (capability !== undefined) entry.capability = capability;
        const version = str('version');
        if (version !== undefined) entry.version = version;
        const name = str('name');
        if (name !== undefined) {
          if (kind === 'workflow') entry.workflow = name;
          else entry.tool = name;
        }
        const outcome = str('outcome');
        if (outcome !== undefined) entry.outcome = outcome;
        if (typeof line['durationMs'] === 'number') entry.durationMs = line['durationMs'];
        out.push(entry);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  async auditVerify(): Promise<AuditVerification> {
    try {
      const { lines } = await new AuditLog(this.store.auditDir).verify();
      return { ok: true, lines, problem: null };
    } catch (error) {
      if (!isAdcapError(error)) throw error;
      return { ok: false, lines: 0, problem: error.message };
    }
  }

  async cacheInfo(): Promise<CacheInfo> {
    const { bytes, entries } = await directorySize(this.store.cacheDir);
    return { bytes, entries, directory: this.store.cacheDir };
  }

  async sandboxStatus(): Promise<SandboxStatus> {
    const platform = process.platform;
    const choice = this.arc.sandboxChoice;
    let available: boolean | null = null;
    let active: string | null = null;
    let reason: string | null = null;
    if (choice.use !== undefined) {
      // An injected sandbox without available() always works (Sandbox.available is optional).
      available = choice.use.available === undefined ? true : await choice.use.available();
      active = available ? choice.use.name : null;
    } else if (platform === 'linux') {
      available = await new BubblewrapSandbox().available();
      active = available ? 'bubblewrap' : null;
    } else if (platform === 'darwin') {
      available = await new SandboxExecSandbox().available();
      active = available ? 'sandbox-exec' : null;
    }
    if (active === null) {
      reason =
        platform === 'linux'
          ? 'bubblewrap does not work on this machine: install bubblewrap 0.8 or newer and enable unprivileged user namespaces.'
          : platform === 'darwin'
            ? '/usr/bin/sandbox-exec does not work on this Mac.'
            : 'This platform has no sandbox for tools yet, so tools do not run here.';
    }
    const platforms: SandboxPlatformStatus[] = [
      {
        platform: 'linux',
        mechanism: 'bubblewrap (namespaces, seccomp, a network proxy for granted hosts)',
        current: platform === 'linux',
        available: platform === 'linux' ? available : null,
        detail: 'Tools see only their package, the chosen workspace and what they were granted.',
      },
      {
        platform: 'darwin',
        mechanism: 'sandbox-exec profile',
        current: platform === 'darwin',
        available: platform === 'darwin' ? available : null,
        detail: 'A deny-by-default profile generated from the grants.',
      },
      {
        platform: 'win32',
        mechanism: 'none yet',
        current: platform === 'win32',
        available: platform === 'win32' ? false : null,
        detail: 'Tools are refused on Windows until a sandbox exists.',
      },
    ];
    return { platform: hostPlatform(), active, reason, platforms };
  }
}

/** An error as the Settings screen words it (surface-text.ts: buttons and screens, never a command). */
function uiError(error: AdcapError): HostError {
  const next = uiNextStep(error);
  return { code: error.code, message: surfaceMessage(error, 'ui'), ...(next === undefined ? {} : { next }) };
}
