/**
 * The v2 client's search index plan (sdk/src/registry/client/snapshot-v2.ts, docs/scaling.md "Cold
 * start and offline search"): segments of consecutive nodes, as many as stay within SEGMENT_DOCS
 * capabilities, so a search walks a few segments instead of one per node.
 */
import { describe, expect, it } from 'vitest';
import { nodesPerSegment } from '../../../../sdk/src/registry/client/snapshot-v2.js';
import { SEGMENT_DOCS } from '../../../../sdk/src/registry/search-index/disk-index.js';

describe('nodesPerSegment', () => {
  it('groups whole nodes up to SEGMENT_DOCS capabilities, a power of two dividing the fan-out', () => {
    expect(SEGMENT_DOCS).toBe(32_768);
    // 500,000 under F = 128: about 3,900 a node, 8 nodes (31,250) a segment, 16 segments.
    expect(nodesPerSegment({ fanout: 128, capabilities: 500_000 })).toBe(8);
    // 100,000 under F = 64: about 1,560 a node, 16 nodes a segment, 4 segments.
    expect(nodesPerSegment({ fanout: 64, capabilities: 100_000 })).toBe(16);
    // A small registry is one segment of every node.
    expect(nodesPerSegment({ fanout: 32, capabilities: 20_000 })).toBe(32);
    expect(nodesPerSegment({ fanout: 4, capabilities: 0 })).toBe(4);
    // Nodes larger than a segment on their own: one node a segment.
    expect(nodesPerSegment({ fanout: 16, capabilities: 16 * SEGMENT_DOCS * 2 })).toBe(1);
  });

  it('every grouping divides the fan-out, so each node is in exactly one segment', () => {
    for (const fanout of [4, 8, 16, 32, 64, 128, 256])
      for (const capabilities of [0, 1, 1_000, 33_000, 500_000, 1_000_000, 10_000_000]) {
        const group = nodesPerSegment({ fanout, capabilities });
        expect(fanout % group).toBe(0);
        expect(group === 1 || group * Math.ceil(capabilities / fanout) <= SEGMENT_DOCS).toBe(true);
      }
  });
});
