/**
 * electron/common may not import the SDK (DESIGN §2), so the host API contract spells the
 * capability-id grammar itself: it must accept exactly what the SDK's one grammar
 * (sdk/src/util/capability-id.ts) accepts.
 */
import { describe, expect, it } from 'vitest';
import { capabilityId } from '../../../electron/common/methods.js';
import { isCapabilityId } from '../../../sdk/src/util/capability-id.js';

const samples = [
  'acme/pdf',
  'acme/pdf-tools',
  'a1/b2-c3',
  `${'p'.repeat(64)}/${'n'.repeat(64)}`,
  `${'p'.repeat(65)}/n`,
  `p/${'n'.repeat(65)}`,
  `${'p'.repeat(100)}/x`,
  'acme',
  'acme/',
  '/pdf',
  'acme/pdf/x',
  'Acme/pdf',
  'acme/pdf--x',
  'acme/-pdf',
  'acme/pdf_x',
  'acme/pdf\n',
];

describe('the host API contract and the SDK agree on capability ids', () => {
  it.each(samples)('%j', (id) => {
    expect(capabilityId.check(id, 'id') === null).toBe(isCapabilityId(id));
  });
});
