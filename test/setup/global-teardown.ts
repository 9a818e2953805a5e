import type { GlobalHandles } from './shared';

export default async function globalTeardown(): Promise<void> {
  const handles = (globalThis as { __platformOps?: GlobalHandles }).__platformOps;
  if (!handles) return;
  await Promise.allSettled([handles.stopEmulator(), handles.stopServer()]);
}
