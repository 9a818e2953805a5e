// The spec's start-image rules (.jpg/.jpeg/.png, <= 10 MB, sides >= 300 px, aspect 1:2.5 to 2.5:1),
// checked as far as the value lets us: a data URL is decoded and measured, an http(s) URL only has
// its extension checked. Pure JS (no Buffer): workflow code runs these checks too.

const IMAGE_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  minSidePx: 300,
  maxAspect: 2.5,
  extensions: ['.jpg', '.jpeg', '.png'],
} as const;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

function base64DecodedLength(b64: string): number {
  const clean = b64.replace(/\s+/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

export function decodeBase64Prefix(b64: string, maxBytes = Infinity): Uint8Array | undefined {
  const clean = b64.replace(/\s+/g, '').replace(/=+$/, '');
  const size = Math.min(Math.floor((clean.length * 3) / 4), maxBytes);
  const out = new Uint8Array(size);
  let o = 0;
  for (let i = 0; i < clean.length && o < size; i += 4) {
    const c = [0, 1, 2, 3].map((k) => (i + k < clean.length ? (B64_INDEX[clean.charCodeAt(i + k)] ?? -1) : 0));
    if (c.some((v, k) => v < 0 && i + k < clean.length)) return undefined;
    const n = (c[0] << 18) | (c[1] << 12) | (c[2] << 6) | c[3];
    if (o < size) out[o++] = (n >> 16) & 0xff;
    if (o < size && i + 2 < clean.length) out[o++] = (n >> 8) & 0xff;
    if (o < size && i + 3 < clean.length) out[o++] = n & 0xff;
  }
  return out.subarray(0, o);
}

interface ImageInfo {
  format: 'png' | 'jpeg';
  width: number;
  height: number;
}

export function readImageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const u16 = (i: number) => (bytes[i] << 8) | bytes[i + 1];
  const u32 = (i: number) => ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 24 && png.every((b, i) => bytes[i] === b)) {
    return { format: 'png', width: u32(16), height: u32(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the JPEG segments up to the first start-of-frame marker, which holds the size.
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1];
      if (marker === 0xff) {
        i++;
        continue;
      }
      const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
      if (isSof) return { format: 'jpeg', height: u16(i + 5), width: u16(i + 7) };
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      i += 2 + u16(i + 2);
    }
  }
  return undefined;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

function imageInfoProblems(info: ImageInfo, bytes: number): string[] {
  const problems: string[] = [];
  if (bytes > IMAGE_LIMITS.maxBytes) problems.push(`must be at most 10 MB (is ${mb(bytes)})`);
  if (info.width < IMAGE_LIMITS.minSidePx || info.height < IMAGE_LIMITS.minSidePx) {
    problems.push(`width and height must be at least 300 px (is ${info.width}x${info.height})`);
  }
  const ratio = info.width / info.height;
  if (info.width > 0 && info.height > 0 && (ratio > IMAGE_LIMITS.maxAspect || ratio < 1 / IMAGE_LIMITS.maxAspect)) {
    problems.push(`aspect ratio must be between 1:2.5 and 2.5:1 (is ${info.width}:${info.height})`);
  }
  return problems;
}

const DATA_URL = /^data:([^;,]*)(;[^,]*)?,(.*)$/s;

export function imageSourceProblems(value: string): string[] {
  const data = DATA_URL.exec(value);
  if (data) {
    const mime = data[1].toLowerCase();
    if (!['image/png', 'image/jpeg', 'image/jpg'].includes(mime)) {
      return ['must be a .jpg, .jpeg or .png image (data URL of type image/jpeg or image/png)'];
    }
    if (!(data[2] ?? '').includes(';base64')) return ['must be a base64 data URL (data:image/…;base64,…)'];
    const size = base64DecodedLength(data[3]);
    if (size > IMAGE_LIMITS.maxBytes) return [`must be at most 10 MB (is ${mb(size)})`];
    const bytes = decodeBase64Prefix(data[3]);
    if (!bytes) return ['must hold valid base64 data'];
    const info = readImageInfo(bytes);
    if (!info) return ['must be a .jpg, .jpeg or .png image (the data is neither PNG nor JPEG)'];
    return imageInfoProblems(info, size);
  }
  // A regex, not `new URL`: URL is not a JS builtin and may be missing in the workflow sandbox.
  const url = /^(https?):\/\/[^/?#\s]+([^?#\s]*)/i.exec(value);
  if (!url) return ['must be an http(s) URL or a data:image/…;base64 URL'];
  const last = (url[2] ?? '').split('/').pop() ?? '';
  const dot = last.lastIndexOf('.');
  // Only an explicit, wrong extension is refused: a URL without one cannot be checked from here.
  if (dot > 0) {
    const ext = last.slice(dot).toLowerCase();
    if (!(IMAGE_LIMITS.extensions as readonly string[]).includes(ext)) {
      return [`must be a .jpg, .jpeg or .png image (URL ends in ${ext})`];
    }
  }
  return [];
}
