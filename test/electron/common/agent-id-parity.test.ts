/**
 * electron/common may not import the SDK (DESIGN §2), so the host API contract restates the ids of
 * the SDK's agents table (sdk/src/store/agent-links/agents.ts): the type and the argument check
 * must name exactly the agents the SDK knows, no more and no fewer.
 */
import { describe, expect, it } from 'vitest';
import { checkArguments } from '../../../electron/common/methods.js';
import type { AgentIdData } from '../../../electron/common/types.js';
import { AGENT_IDS, type AgentId } from '../../../sdk/src/store/agent-links/agents.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A compile error here means electron/common/types.ts AgentIdData and the SDK's AGENT_IDS differ.
const typesAgree: Same<AgentIdData, AgentId> = true;

describe('the host API contract and the SDK agree on agent ids', () => {
  it('the types are the same union', () => {
    expect(typesAgree).toBe(true);
  });
  it.each([...AGENT_IDS])('agents.unlink accepts %s', (id) => {
    expect(checkArguments('agents.unlink', ['acme/pdf', id])).toBeNull();
  });
  it.each(['not-an-agent', 'Claude-Code', '', 'roo'])('agents.unlink refuses %j', (id) => {
    expect(checkArguments('agents.unlink', ['acme/pdf', id])).not.toBeNull();
  });
});
