// What a person wants from a finished mediaGeneration after the JSON: where the outputs are now.
import { MediaGenerationResult } from '../workflows/media/contract';

/**
 * Lines such as `  video  s3://bucket/key.mp4  (1234 bytes, sha256 0123456789ab)`. Empty when the
 * result is not a mediaGeneration result (a newer or older worker): the JSON above still says it all.
 */
export function renderMediaSummary(result: unknown): string[] {
  const parsed = MediaGenerationResult.safeParse(result);
  if (!parsed.success) return [];
  const { outputs, outputUrls } = parsed.data;
  const lines: string[] = [];
  if (outputs.length > 0) {
    lines.push('Outputs kept:');
    for (const o of outputs) {
      lines.push(`  ${o.kind}  ${o.kept.uri}  (${o.kept.bytes} bytes, sha256 ${o.kept.sha256.slice(0, 12)})`);
    }
  }
  // keepOutputs false: only the platform's URLs, which expire, so say so.
  if (outputUrls.length > 0) {
    lines.push('Outputs not kept (the platform URLs expire):');
    for (const o of outputUrls) {
      const ttl = o.ttlSeconds === undefined ? '' : `  (ttl ${o.ttlSeconds} s)`;
      lines.push(`  ${o.kind}  ${o.url}${ttl}`);
    }
  }
  if (lines.length === 0) lines.push('No outputs.');
  return lines;
}
