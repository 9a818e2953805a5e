// Artifact store settings from the environment, checked with zod.
import path from 'node:path';
import { z } from 'zod';
import { LocalArtifactStore } from '../artifacts';
import { parseConfig } from '../platform-client/config';

const Env = z.object({
  // Resolved against the working directory when the worker starts, so logs show one absolute place.
  ARTIFACT_DIR: z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform((dir) => path.resolve(dir ?? path.join(process.cwd(), '.data', 'artifacts'))),
});

type ArtifactSettings = z.infer<typeof Env>;

export function loadArtifactSettings(env: NodeJS.ProcessEnv = process.env): ArtifactSettings {
  return parseConfig(Env, env, 'Artifact configuration');
}

/** The store the worker keeps outputs in: today always the local folder of ARTIFACT_DIR. */
export function createArtifactStore(env: NodeJS.ProcessEnv = process.env): LocalArtifactStore {
  return new LocalArtifactStore(loadArtifactSettings(env).ARTIFACT_DIR);
}
