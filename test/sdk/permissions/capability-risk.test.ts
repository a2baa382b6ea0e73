import { describe, expect, it } from 'vitest';
import { capabilityRisk } from '../../../sdk/src/permissions/capability-risk.js';

describe('capabilityRisk: one verdict per capability', () => {
  it('is none with its reason when nothing asks for access', () => {
    expect(capabilityRisk([{ id: 'acme/a', dependency: false, permissions: [] }])).toEqual({
      level: 'none',
      reason: 'No risk: it asks for no access beyond its own files.',
      factors: [],
      unknown: [],
    });
  });

  it("counts a dependency's unscoped network access as high and names the dependency", () => {
    const risk = capabilityRisk([
      { id: 'acme/report', name: 'Report', dependency: false, permissions: [{ id: 'fs:read', scope: 'workspace', reason: 'r' }] },
      { id: 'acme/net', name: 'Net helper', dependency: true, permissions: [{ id: 'net:connect', reason: 'r' }] },
    ]);
    expect(risk.level).toBe('high');
    expect(risk.reason).toBe('High: a dependency, Net helper (acme/net), may connect to any server on the internet.');
    expect(risk.factors.map((f) => [f.id, f.level, f.subject])).toEqual([
      ['acme/net', 'high', 'net:connect'],
      ['acme/report', 'low', 'fs:read:workspace'],
    ]);
  });

  it('counts skill programs that run outside the sandbox as high, before permissions of the same level', () => {
    const risk = capabilityRisk([
      {
        id: 'acme/skills',
        dependency: false,
        permissions: [{ id: 'process:exec', scope: 'git', reason: 'r' }],
        skillPrograms: [{ skill: 'proofread', programs: ['scripts/fix.py'] }],
      },
    ]);
    expect(risk.level).toBe('high');
    expect(risk.reason).toBe(
      'High: it ships 1 program in its skill proofread that your agent may run outside Arcotheon’s sandbox, and 1 more at this level.',
    );
  });

  it('says when a dependency could not be read', () => {
    const risk = capabilityRisk(
      [{ id: 'acme/a', dependency: false, permissions: [{ id: 'env:read', scope: 'TOKEN', reason: 'r' }] }],
      ['acme/gone'],
    );
    expect(risk.level).toBe('medium');
    expect(risk.reason).toBe(
      'Medium: it may read the environment variable TOKEN (the app asks you for its value). ' +
        'The permissions of acme/gone could not be read, so the risk may be higher.',
    );
  });
});
