import { describe, expect, it } from 'vitest';
import { newTimeOrderedId } from './ids.js';

describe('newTimeOrderedId', () => {
  it('is 32 hex digits that sort by the millisecond they were made in, random after it', () => {
    const a = newTimeOrderedId(1_764_000_000_000);
    const b = newTimeOrderedId(1_764_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 12)).toBe((1_764_000_000_000).toString(16).padStart(12, '0'));
    expect(newTimeOrderedId(1_764_000_000_000)).not.toBe(a);
  });
});
