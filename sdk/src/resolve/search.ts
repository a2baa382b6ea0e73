import type { Candidate, Universe } from './universe.js';

/** A requirement on `target`: from the request (owner null) or from a selected version. */
export interface Requirement {
  owner: string | null;
  ownerVersion?: string;
  range: string;
}

/** A set of requirements on one id that the search found it could not meet together. */
export interface Clash {
  target: string;
  requirements: Requirement[];
}

/**
 * A fact about the current partial selection. `req`: the version selected for `owner` requires
 * `target` within `range`. `is`: `owner` is selected at `version`. Requirements from the request
 * are always true and never appear in facts.
 */
interface Fact {
  key: string;
  kind: 'req' | 'is';
  owner: string;
  target: string;
  value: string;
}

/** A nogood: facts that cannot all hold in any solution (learned from an exhausted id). */
type Nogood = Fact[];

export class BudgetExceeded extends Error {}

const MAX_NOGOOD_FACTS = 24;
const MAX_NOGOODS = 20000;
const MAX_CLASHES = 64;

/**
 * spec §11: backtracking search for the highest versions that satisfy every constraint.
 *
 * Ids are decided one at a time in breadth-first discovery order; each id's versions are tried
 * installed-first, then highest-first, then (last) versions that still need an exact pin from a
 * later requirement. A failed id yields a nogood (the facts that made every version fail);
 * the search jumps straight back to the latest decision named in it (conflict-directed
 * backjumping) and remembers it, so the same conflict is recognised at once when a different
 * version recreates it. Because only provably failing branches are skipped, the first solution
 * found is the one plain backtracking would find: no selected version can be raised alone.
 */
export class Search {
  readonly assigned = new Map<string, Candidate>();
  readonly requirements = new Map<string, Requirement[]>();
  readonly clashes: Clash[] = [];
  steps = 0;

  private readonly open = new Set<string>();
  private readonly facts = new Map<string, Fact>();
  private readonly nogoodsByOwner = new Map<string, Nogood[]>();
  private nogoodCount = 0;

  constructor(
    private readonly universe: Universe,
    private readonly maxSteps: number,
  ) {
    for (const root of universe.request.roots) this.require(root.id, { owner: null, range: root.range });
  }

  rootIds(): string[] {
    return this.universe.request.roots.map((r) => r.id);
  }

  /** True when a solution was found (read it from `assigned`); false when none exists. */
  run(): boolean {
    return this.solve() === null;
  }

  private solve(): Nogood | null {
    const id = this.nextOpen();
    if (id === undefined) return this.finalCheck();

    const learned = new Map<string, Fact>();
    const learn = (facts: Iterable<Fact>): void => {
      for (const f of facts) if (f.owner !== id) learned.set(f.key, f);
    };
    const clash: Clash[] = [];
    let leaf = true;
    const reqs = this.requirements.get(id) ?? [];

    for (const candidate of this.ordered(id)) {
      if (candidate.excluded !== undefined) continue;
      if (++this.steps > this.maxSteps) throw new BudgetExceeded();

      // Requirements already on this id: a requirement from the request beats one from a version,
      // because it makes the exclusion unconditional (an empty blame).
      let blame: Fact[] | null = null;
      for (const r of reqs) {
        if (this.universe.book.satisfies(candidate.version, r.range)) continue;
        if (r.owner === null) {
          blame = [];
          break;
        }
        blame ??= [this.reqFact(r.owner, id, r.range)];
      }
      if (blame !== null) {
        learn(blame);
        continue;
      }

      this.assign(id, candidate);
      // The candidate's own dependencies against ids already decided.
      for (const [dep, range] of candidate.deps) {
        const other = this.assigned.get(dep);
        if (other !== undefined && !this.universe.book.satisfies(other.version, range)) {
          blame = [this.reqFact(id, dep, range), this.isFact(dep, other.version)];
          if (this.clashes.length < MAX_CLASHES) clash.push({ target: dep, requirements: [...(this.requirements.get(dep) ?? [])] });
          break;
        }
      }
      blame ??= this.matchingNogood(id);
      if (blame !== null) {
        this.unassign(id);
        learn(blame);
        continue;
      }

      const below = this.solve();
      if (below === null) return null;
      this.unassign(id);
      if (!below.some((f) => f.owner === id)) return below; // this decision played no part: jump over it
      leaf = false;
      learn(below);
    }

    if (leaf && this.clashes.length < MAX_CLASHES) {
      this.clashes.push({ target: id, requirements: [...reqs] }, ...clash);
    }
    // The id exists only because something requires it: that requirement is part of the reason.
    const requirer = reqs.find((r) => r.owner === null) ?? reqs[0];
    if (requirer !== undefined && requirer.owner !== null) {
      const f = this.reqFact(requirer.owner, id, requirer.range);
      learned.set(f.key, f);
    }
    const nogood = [...learned.values()];
    this.remember(nogood);
    return nogood;
  }

  /** spec §11: a yanked or unrequested prerelease version stays only if something pins it exactly. */
  private finalCheck(): Nogood | null {
    for (const [id, candidate] of this.assigned) {
      if (!candidate.needsPin) continue;
      const pinned = (this.requirements.get(id) ?? []).some((r) => this.universe.book.exactPin(r.range) === candidate.norm);
      if (!pinned) return [...this.assigned].map(([owner, c]) => this.isFact(owner, c.version));
    }
    return null;
  }

  private ordered(id: string): Candidate[] {
    const all = this.universe.versions(id);
    const reqs = this.requirements.get(id) ?? [];
    const pinnedNow = (c: Candidate): boolean => reqs.some((r) => this.universe.book.exactPin(r.range) === c.norm);
    const usableNow = all.filter((c) => !c.needsPin || pinnedNow(c));
    const later = all.filter((c) => c.needsPin && !pinnedNow(c));
    // Keep an installed version while it satisfies everything (npm --prefer-dedupe).
    const installed = this.universe.request.installed?.[id];
    const keep = installed === undefined ? undefined : usableNow.find((c) => c.version === installed);
    const first = keep === undefined ? [] : [keep];
    return [...first, ...usableNow.filter((c) => c !== keep), ...later];
  }

  private nextOpen(): string | undefined {
    let best: string | undefined;
    let bestRank = Infinity;
    for (const id of this.open) {
      const rank = this.universe.rank.get(id) ?? Infinity;
      if (rank < bestRank) {
        best = id;
        bestRank = rank;
      }
    }
    return best;
  }

  private require(target: string, requirement: Requirement): void {
    const list = this.requirements.get(target);
    if (list === undefined) this.requirements.set(target, [requirement]);
    else list.push(requirement);
    if (!this.assigned.has(target)) this.open.add(target);
  }

  private assign(id: string, candidate: Candidate): void {
    this.assigned.set(id, candidate);
    this.open.delete(id);
    for (const [dep, range] of candidate.deps) this.require(dep, { owner: id, ownerVersion: candidate.version, range });
  }

  /** Undoes assign(); decisions are undone in reverse order, so our requirements are the last ones. */
  private unassign(id: string): void {
    const candidate = this.assigned.get(id);
    if (candidate === undefined) return;
    this.assigned.delete(id);
    for (const [dep] of candidate.deps) {
      const list = this.requirements.get(dep);
      list?.pop();
      if (list === undefined || list.length === 0) {
        this.requirements.delete(dep);
        this.open.delete(dep);
      }
    }
    if ((this.requirements.get(id)?.length ?? 0) > 0) this.open.add(id);
  }

  private holds(f: Fact): boolean {
    const c = this.assigned.get(f.owner);
    if (c === undefined) return false;
    return f.kind === 'is' ? c.version === f.value : c.depMap.get(f.target) === f.value;
  }

  private matchingNogood(id: string): Nogood | null {
    for (const nogood of this.nogoodsByOwner.get(id) ?? []) {
      if (nogood.every((f) => this.holds(f))) return nogood;
    }
    return null;
  }

  private remember(nogood: Nogood): void {
    if (nogood.length === 0 || nogood.length > MAX_NOGOOD_FACTS || this.nogoodCount >= MAX_NOGOODS) return;
    this.nogoodCount++;
    for (const owner of new Set(nogood.map((f) => f.owner))) {
      const list = this.nogoodsByOwner.get(owner);
      if (list === undefined) this.nogoodsByOwner.set(owner, [nogood]);
      else list.push(nogood);
    }
  }

  private reqFact(owner: string, target: string, range: string): Fact {
    return this.intern('req', owner, target, range);
  }

  private isFact(owner: string, version: string): Fact {
    return this.intern('is', owner, owner, version);
  }

  /** One object per distinct fact, so nogoods share them and keys are built once. */
  private intern(kind: Fact['kind'], owner: string, target: string, value: string): Fact {
    const key = `${kind}\u0000${owner}\u0000${target}\u0000${value}`;
    const known = this.facts.get(key);
    if (known !== undefined) return known;
    const fact: Fact = { key, kind, owner, target, value };
    this.facts.set(key, fact);
    return fact;
  }
}
