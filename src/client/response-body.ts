// Reading a platform answer's body with bounds. ky's timeout ends when the headers arrive: a server
// (or proxy) that sends headers and then stalls would hold the call, and the activity slot, for ever.
// So the body is read chunk by chunk, each within the call's timeout, and cut at a size cap.

/** Larger than any answer the spec describes (a batch's output file is at most a few hundred MB). */
const MAX_RESPONSE_BYTES = 512 * 2 ** 20;

export class BodyStalledError extends Error {
  override readonly name = 'BodyStalledError';
  constructor(readonly idleMs: number) {
    super(`the body stalled: no bytes for ${idleMs} ms`);
  }
}

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
  }
}

/**
 * The body as UTF-8 text. Each chunk must come within `idleMs` (else BodyStalledError, after
 * cancelling the stream so the connection is freed); more than `maxBytes` is BodyTooLargeError.
 */
export async function readBodyText(response: Response, idleMs: number, maxBytes = MAX_RESPONSE_BYTES): Promise<string> {
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await withinIdle(reader.read(), idleMs);
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) throw new BodyTooLargeError(maxBytes);
      chunks.push(value);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function withinIdle<T>(read: Promise<T>, idleMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyStalledError(idleMs)), idleMs);
  });
  try {
    return await Promise.race([read, stalled]);
  } finally {
    clearTimeout(timer);
  }
}
