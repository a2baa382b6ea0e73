/**
 * Settings: the host's facts, remotes with their keys and last verification, the sandbox, the
 * cache and the audit log. Loaded when the Settings screen opens and after changes.
 */
import { create } from 'zustand';
import type {
  AuditEntry,
  AuditVerification,
  CacheInfo,
  HostError,
  HostInfoData,
  PolicyStatusData,
  RemoteStatus,
  SandboxStatus,
} from '../../../electron/common/index.js';
import { host } from '../host.js';

interface SettingsState {
  info: HostInfoData | null;
  remotes: RemoteStatus[] | null;
  sandbox: SandboxStatus | null;
  cache: CacheInfo | null;
  audit: AuditEntry[] | null;
  auditCheck: AuditVerification | null;
  error: HostError | null;
  /** The organisation policy in force and what applying it at start-up did. */
  policy: PolicyStatusData | null;
  loadInfo(): Promise<void>;
  loadPolicy(): Promise<void>;
  loadRemotes(): Promise<void>;
  loadAll(): Promise<void>;
}

export const useSettings = create<SettingsState>((set) => ({
  info: null,
  remotes: null,
  sandbox: null,
  cache: null,
  audit: null,
  auditCheck: null,
  error: null,
  policy: null,
  async loadInfo() {
    const info = await host().host.info();
    if (info.ok) set({ info: info.value });
  },
  async loadPolicy() {
    const policy = await host().policy.show();
    if (policy.ok) set({ policy: policy.value });
  },
  async loadRemotes() {
    const remotes = await host().remotes.status();
    set(remotes.ok ? { remotes: remotes.value } : { error: remotes.error });
  },
  async loadAll() {
    const client = host();
    const [remotes, sandbox, cache, audit, auditCheck] = await Promise.all([
      client.remotes.status(),
      client.sandbox.status(),
      client.cache.info(),
      client.audit.list({ limit: 200 }),
      client.audit.verify(),
    ]);
    const firstError = [remotes, sandbox, cache, audit, auditCheck].find((r) => !r.ok);
    set({
      remotes: remotes.ok ? remotes.value : null,
      sandbox: sandbox.ok ? sandbox.value : null,
      cache: cache.ok ? cache.value : null,
      audit: audit.ok ? audit.value : null,
      auditCheck: auditCheck.ok ? auditCheck.value : null,
      error: firstError !== undefined && !firstError.ok ? firstError.error : null,
    });
  },
}));
