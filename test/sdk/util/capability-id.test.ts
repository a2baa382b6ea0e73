import { describe, expect, it } from 'vitest';
import { isCapabilityId, isIdPart, splitCapabilityId } from '../../../sdk/src/util/capability-id.js';
import { parseCapabilityId } from '../../../sdk/src/registry/layout.js';

// spec §3.1 / DESIGN §3: one grammar for ids, publishers, names and skill names.
describe('the capability-id grammar (util/capability-id.ts)', () => {
  it('accepts lowercase letters and digits joined by single hyphens, 1-64 characters a part', () => {
    for (const part of ['a', 'pdf', 'pdf-tools', 'a1-b2-c3', 'x'.repeat(64)]) expect(isIdPart(part), part).toBe(true);
    expect(splitCapabilityId('acme/pdf-tools')).toEqual({ publisher: 'acme', name: 'pdf-tools' });
    expect(isCapabilityId(`${'p'.repeat(64)}/${'n'.repeat(64)}`)).toBe(true);
  });

  it('refuses everything else, the same way in every caller', () => {
    const badParts = ['', 'A', 'pdf--tools', '-pdf', 'pdf-', 'pdf_tools', 'pdf.tools', 'x'.repeat(65), 'é'];
    for (const part of badParts) expect(isIdPart(part), part).toBe(false);
    for (const id of ['acme', 'acme/', '/pdf', 'acme/pdf/x', 'Acme/pdf', 'acme/pdf--x', `acme/${'n'.repeat(65)}`, 42, null]) {
      expect(isCapabilityId(id), String(id)).toBe(false);
      if (typeof id === 'string') expect(() => parseCapabilityId(id)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});
