/**
 * The overall risk of each card (docs/ui.md "Permissions, the heart of it"): the host computes a
 * capability's verdict once per catalogue content and installed versions (`catalogue.risks`); the
 * page asks only for the cards it shows, in one batched call once the list is still (not while each
 * keystroke or scroll step brings new cards: docs/ui.md "Fast"), and keeps what it got
 * until the host's revision moves (after an install, a refresh, a reconnection), when the cards on
 * screen ask again. A card without a verdict yet shows none: never a guess.
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import type { CardRiskData, CardRiskView } from '../../../electron/common/index.js';
import { host } from '../host.js';

/** Discover's cards show the version a page shows (the newest listed); Installed's the installed one. */
export type RiskMode = 'catalogue' | 'installed';

const MODES: readonly RiskMode[] = ['catalogue', 'installed'];
/** Ids per call (the host's limit is 500). */
const BATCH = 200;
/** How long the cards on screen must stay the same before their verdicts are asked for, in one call... */
const QUIET_MS = 150;
/** ...but cards never wait longer than this (a list that keeps changing still gets its markers). */
const MAX_WAIT_MS = 600;

interface RiskState {
  revision: string | null;
  catalogue: ReadonlyMap<string, CardRiskView>;
  installed: ReadonlyMap<string, CardRiskView>;
}

export const useRisks = create<RiskState>(() => ({ revision: null, catalogue: new Map(), installed: new Map() }));

/** Cards on screen, by mode and id (a count: the same capability may show twice, e.g. on the first screen and in the list). */
const shown: Record<RiskMode, Map<string, number>> = { catalogue: new Map(), installed: new Map() };
/** Ids to ask for in the next call. */
const asking: Record<RiskMode, Set<string>> = { catalogue: new Set(), installed: new Set() };
let timer: ReturnType<typeof setTimeout> | null = null;
/** When the first card of the next call was shown. */
let waitingSince = 0;

function schedule(): void {
  const now = performance.now();
  if (timer === null) waitingSince = now;
  else clearTimeout(timer);
  timer = setTimeout(
    () => {
      timer = null;
      // In the page's idle time: a key typed meanwhile is handled first.
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void flush(), { timeout: 200 });
      else void flush();
    },
    Math.max(0, Math.min(QUIET_MS, waitingSince + MAX_WAIT_MS - now)),
  );
}

async function flush(): Promise<void> {
  for (const mode of MODES) {
    const ids = [...asking[mode]];
    asking[mode].clear();
    for (let i = 0; i < ids.length; i += BATCH) {
      const result = await host().catalogue.risks({ ids: ids.slice(i, i + BATCH), ...(mode === 'installed' ? { installed: true } : {}) });
      // A failed call leaves the markers out (the page's own verdict still shows); the next refresh asks again.
      if (result.ok) receive(mode, result.value);
    }
  }
}

function receive(mode: RiskMode, data: CardRiskData): void {
  const state = useRisks.getState();
  const got = new Map(data.verdicts.map((v) => [v.id, v]));
  if (state.revision !== data.revision) {
    // What was known belongs to another catalogue or another set of installed versions: the cards on
    // screen ask again.
    const fresh: Record<RiskMode, Map<string, CardRiskView>> = { catalogue: new Map(), installed: new Map() };
    fresh[mode] = got;
    useRisks.setState({ revision: data.revision, ...fresh });
    for (const m of MODES) for (const id of shown[m].keys()) if (!fresh[m].has(id)) asking[m].add(id);
    if (asking.catalogue.size + asking.installed.size > 0) schedule();
    return;
  }
  useRisks.setState({ [mode]: new Map([...state[mode], ...got]) } as Partial<RiskState>);
}

function show(id: string, mode: RiskMode): void {
  shown[mode].set(id, (shown[mode].get(id) ?? 0) + 1);
  if (!useRisks.getState()[mode].has(id)) {
    asking[mode].add(id);
    schedule();
  }
}

function hide(id: string, mode: RiskMode): void {
  const n = (shown[mode].get(id) ?? 1) - 1;
  if (n <= 0) shown[mode].delete(id);
  else shown[mode].set(id, n);
}

/** After installs, catalogue refreshes and reconnections: the cards on screen ask again (the host says if anything changed). */
export function refreshRisks(): void {
  for (const mode of MODES) for (const id of shown[mode].keys()) asking[mode].add(id);
  if (asking.catalogue.size + asking.installed.size > 0) schedule();
}

/** The verdict of one card, asked for while the card is on screen; undefined until the host answers. */
export function useCardRisk(id: string, mode: RiskMode = 'catalogue'): CardRiskView | undefined {
  useEffect(() => {
    show(id, mode);
    return () => hide(id, mode);
  }, [id, mode]);
  return useRisks((s) => s[mode].get(id));
}
