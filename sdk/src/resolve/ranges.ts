import semver from 'semver';

/**
 * Memoised semver range checks for one resolution. Satisfaction is tested with
 * `includePrerelease`: whether a prerelease may be *considered* at all is decided separately
 * (spec §11: only when requested or named exactly), so a pinned `2.0.0-beta.1` can still
 * satisfy another dependent's `>=1.0.0`.
 */
export class RangeBook {
  private readonly parsed = new Map<string, semver.Range | null>();
  private readonly tests = new Map<string, boolean>();
  private readonly pins = new Map<string, string | null>();

  /** The parsed range, or null when it is not a valid semver range. */
  range(text: string): semver.Range | null {
    let range = this.parsed.get(text);
    if (range === undefined) {
      try {
        range = new semver.Range(text, { includePrerelease: true });
      } catch {
        range = null;
      }
      this.parsed.set(text, range);
    }
    return range;
  }

  valid(text: string): boolean {
    return this.range(text) !== null;
  }

  satisfies(version: string, text: string): boolean {
    const key = `${text}\u0000${version}`;
    let ok = this.tests.get(key);
    if (ok === undefined) {
      const range = this.range(text);
      ok = range !== null && range.test(version);
      this.tests.set(key, ok);
    }
    return ok;
  }

  /**
   * The version a range names exactly (`1.2.3`, `=1.2.3`, `v1.2.3`), without build metadata, or
   * null. spec §11: this is what "pinned exactly" and "named exactly" mean.
   */
  exactPin(text: string): string | null {
    let pin = this.pins.get(text);
    if (pin === undefined) {
      pin = null;
      const range = this.range(text);
      const only = range?.set.length === 1 ? range.set[0] : undefined;
      const comparator = only?.length === 1 ? only[0] : undefined;
      if (comparator !== undefined && (comparator.operator === '' || comparator.operator === '=')) {
        const version: unknown = comparator.semver;
        if (version instanceof semver.SemVer) pin = version.version;
      }
      this.pins.set(text, pin);
    }
    return pin;
  }
}
