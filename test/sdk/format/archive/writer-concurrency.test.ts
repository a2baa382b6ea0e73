// The build deflates one piece per free core (at most 4, at least 1), so on a busy
// machine it costs what one gzip costs instead of competing with itself; the number of pieces run
// at once never changes the archive's bytes (spec §2: builds are byte-identical).
import { describe, expect, it } from 'vitest';
import { deflateConcurrency } from '../../../../sdk/src/format/archive/writer.js';

describe('deflateConcurrency', () => {
  it('runs one deflate per free core on a quiet machine, at most four', () => {
    expect(deflateConcurrency(2, 0)).toBe(2);
    expect(deflateConcurrency(4, 0.2)).toBe(4);
    expect(deflateConcurrency(16, 1)).toBe(4);
  });

  it('runs one at a time when the load leaves at most one core free', () => {
    expect(deflateConcurrency(2, 1.6)).toBe(1);
    expect(deflateConcurrency(2, 15)).toBe(1);
    expect(deflateConcurrency(1, 0)).toBe(1);
    expect(deflateConcurrency(4, 2.4)).toBe(2);
  });
});
