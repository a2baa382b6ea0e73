/**
 * What is on this computer: the installed list with its health, one installed capability's detail,
 * the updates check and the doctor's last report. Refreshed when the host says what is installed
 * changed; banners and badges are selectors over this store, never copies.
 */
import { create } from 'zustand';
import type { DoctorReportData, HostError, InstalledDetail, InstalledSummary, UpdatesCheck } from '../../../electron/common/index.js';
import { host } from '../host.js';
import { runOperation } from './operations.js';

interface Loadable<T> {
  value: T | null;
  loading: boolean;
  error: HostError | null;
}

const idle = <T>(): Loadable<T> => ({ value: null, loading: false, error: null });

interface InstalledState {
  overview: Loadable<InstalledSummary[]>;
  details: Record<string, Loadable<InstalledDetail>>;
  updates: Loadable<UpdatesCheck>;
  doctor: Loadable<DoctorReportData>;
  loadOverview(): Promise<void>;
  loadDetail(id: string): Promise<void>;
  checkUpdates(): Promise<void>;
  runDoctor(options?: { fix?: boolean; dryRun?: boolean }): Promise<DoctorReportData | null>;
  /** After a change: reload the list, every detail on screen and the updates. */
  refreshAll(): void;
}

/** Installed capabilities' names for their ids ("Meeting notes (acme/notes)"), the id alone when the list has none. */
export function installedNames(ids: readonly string[], list: readonly InstalledSummary[] | null): string {
  return ids
    .map((id) => {
      const name = list?.find((c) => c.id === id)?.name;
      return name === undefined || name === id ? id : `${name} (${id})`;
    })
    .join(', ');
}

export const useInstalled = create<InstalledState>((set, get) => ({
  overview: idle(),
  details: {},
  updates: idle(),
  doctor: idle(),
  async loadOverview() {
    set((s) => ({ overview: { ...s.overview, loading: true } }));
    const result = await host().installs.overview();
    set({
      overview: result.ok
        ? { value: result.value, loading: false, error: null }
        : { value: get().overview.value, loading: false, error: result.error },
    });
  },
  async loadDetail(id) {
    set((s) => ({ details: { ...s.details, [id]: { ...(s.details[id] ?? idle()), loading: true } } }));
    const result = await host().installs.detail(id);
    set((s) => ({
      details: {
        ...s.details,
        [id]: result.ok ? { value: result.value, loading: false, error: null } : { value: null, loading: false, error: result.error },
      },
    }));
  },
  async checkUpdates() {
    set((s) => ({ updates: { ...s.updates, loading: true } }));
    const result = await host().updates.check();
    set((s) => ({
      updates: result.ok
        ? { value: result.value, loading: false, error: null }
        : { value: s.updates.value, loading: false, error: result.error },
    }));
  },
  async runDoctor(options = {}) {
    set((s) => ({ doctor: { ...s.doctor, loading: true } }));
    const label = options.fix === true ? (options.dryRun === true ? 'Preview repairs' : 'Repair') : 'Check health';
    const result = await runOperation(label, () => host().doctor.run(options));
    set((s) => ({
      doctor: result.ok
        ? { value: result.value, loading: false, error: null }
        : { value: s.doctor.value, loading: false, error: result.error },
    }));
    // The host marks installs the doctor found broken: the list and the banners follow.
    void get().loadOverview();
    return result.ok ? result.value : null;
  },
  refreshAll() {
    void get().loadOverview();
    for (const id of Object.keys(get().details)) void get().loadDetail(id);
    if (get().updates.value !== null) void get().checkUpdates();
  },
}));

/** Selector: installs that need the user (broken or revoked), for the banner on every screen. */
export const troubled = (s: InstalledState): InstalledSummary[] =>
  (s.overview.value ?? []).filter((i) => i.health === 'broken' || i.health === 'revoked');

/** Selector: the number of updates (from the last check, else from the installed list). */
export const updateCount = (s: InstalledState): number =>
  s.updates.value !== null
    ? s.updates.value.updates.filter((u) => !u.dependency).length
    : (s.overview.value ?? []).filter((i) => i.updateAvailable !== null).length;

/** Selector factory: an installed capability's name, or its id when it is not in the list (docs/ui.md: names where they exist). */
export const nameOf =
  (id: string) =>
  (s: InstalledState): string =>
    (s.overview.value ?? []).find((i) => i.id === id)?.name ?? id;
