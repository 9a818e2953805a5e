// The small real files behind output URLs: an MP4 (ISO BMFF boxes ftyp + free + mdat, which `file`
// and players recognise as MP4, with deterministic filler as media data), a WAV (a valid RIFF header
// and one second of quiet 8 kHz noise) and a PNG (16×16 RGB, valid chunks and CRCs, a colour from
// the token). Bytes are fixed by the task's token, so a download repeats exactly.
import { crc32, deflateSync } from 'node:zlib';
import type { OutputKind as MediaKind } from '@platform-ops/client';
import { hash32, prng } from '../hash';

export const OUTPUT_KINDS = { mp4: 'video/mp4', wav: 'audio/wav', png: 'image/png' } as const;
export type OutputKind = keyof typeof OUTPUT_KINDS;

/** The file each kind of output is served as. */
export const FILE_OF_KIND: Record<MediaKind, OutputKind> = { video: 'mp4', audio: 'wav', image: 'png' };

/** Output file names: 32 hex characters of token and the kind's extension. */
export const OUTPUT_NAME = /^([0-9a-f]{32})\.(mp4|wav|png)$/;

/** Bytes of the output file of `kind` for a task. */
export function outputBytes(kind: OutputKind, token: string, videoSeconds: number): Buffer {
  if (kind === 'mp4') return mp4Bytes(token, videoSeconds);
  return kind === 'wav' ? wavBytes(token) : pngBytes(token);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 0);
  typed.copy(out, 4);
  out.writeUInt32BE(crc32(typed), 8 + data.length);
  return out;
}

/** A 16×16 8-bit RGB PNG: one colour from the token, with a little deterministic noise. */
function pngBytes(token: string): Buffer {
  const size = 16;
  const next = prng(hash32(`png-${token}`));
  const base = [0, 1, 2].map(() => Math.floor(next() * 256));
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0, then RGB
    for (let x = 0; x < size; x++) {
      for (let c = 0; c < 3; c++) row[1 + x * 3 + c] = (base[c] + Math.floor(next() * 16)) & 0xff;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(2, 9); // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function box(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function filler(seed: number, length: number): Buffer {
  const next = prng(seed);
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

/** About 4 KB: ftyp (isom), a free box naming the emulator, and an mdat of filler. */
function mp4Bytes(token: string, seconds: number): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.concat([Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2mp41', 'latin1')]),
  );
  const free = box('free', Buffer.from(`platform emulator output ${token} ${seconds}s`, 'latin1'));
  const mdat = box('mdat', filler(hash32(`mp4-${token}`), 4_000));
  return Buffer.concat([ftyp, free, mdat]);
}

/** One second of 8-bit mono 8 kHz PCM, near silence. */
function wavBytes(token: string): Buffer {
  const rate = 8_000;
  const next = prng(hash32(`wav-${token}`));
  const samples = Buffer.alloc(rate);
  for (let i = 0; i < rate; i++) samples[i] = 128 + Math.floor((next() - 0.5) * 8);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16); // PCM fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // byte rate = rate × 1 channel × 1 byte
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}
