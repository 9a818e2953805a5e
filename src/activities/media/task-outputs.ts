// The outputs of a finished task, as task-result lists them: videos, images and audios with their TTLs.
import type { TaskOutputRef } from '../../workflows/media/contract';
import type { TaskResult } from '../../platform/schemas/media';

const ttl = (value: string | number | undefined): number | undefined => {
  const n = Number(value);
  return value === undefined || !Number.isFinite(n) ? undefined : n;
};

export function outputsOf(result: TaskResult): TaskOutputRef[] {
  return [
    ...result.videos.map((v) => ({
      kind: 'video' as const,
      url: v.video_url,
      ttlSeconds: ttl(v.video_url_ttl),
      type: v.video_type,
    })),
    ...result.images.map((i) => ({
      kind: 'image' as const,
      url: i.image_url,
      ttlSeconds: ttl(i.image_url_ttl),
      type: i.image_type,
    })),
    ...result.audios.map((a) => ({
      kind: 'audio' as const,
      url: a.audio_url,
      ttlSeconds: ttl(a.audio_url_ttl),
      type: a.audio_type,
    })),
  ];
}
