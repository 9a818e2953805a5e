// Ids as artifact path segments: one-to-one, so two runs never share a path.
import { artifactKeySegments, safeSegment } from '../../src/artifacts';

describe('safeSegment', () => {
  it('keeps plain ids as they are', () => {
    expect(safeSegment('media-1234_abc.v2')).toBe('media-1234_abc.v2');
  });

  it('gives ids that differ only in unsafe characters different segments', () => {
    const ids = ['a/b', 'a_b', 'a\\b', 'a b', 'a?b', '..', '.', '...', '_..', 'x'.repeat(121), `${'x'.repeat(121)}y`];
    const segments = ids.map(safeSegment);
    expect(new Set(segments).size).toBe(ids.length);
    expect(safeSegment('a_b')).toBe('a_b');
    expect(safeSegment('a/b')).toMatch(/^a_b~[0-9a-f]{16}$/);
  });

  it('never equals another id kept as is, and is always a valid, short key segment', () => {
    const hashed = safeSegment('a/b');
    // A literal id equal to a hashed segment is itself hashed ("~" is not kept), so they stay apart.
    expect(safeSegment(hashed)).not.toBe(hashed);
    for (const id of ['../../etc/passwd', '..', '\0', 'é'.repeat(300), 'C:\\x', '']) {
      const s = safeSegment(id);
      expect(s.length).toBeLessThanOrEqual(120);
      expect(() => artifactKeySegments(`media/${s}/x`)).not.toThrow();
    }
  });
});
