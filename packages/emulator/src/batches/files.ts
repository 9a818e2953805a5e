// The files API's storage: uploaded batch inputs and the output/error files batches produce. Files
// belong to the user who uploaded them (or whose batch made them) and vanish after their retention.
import { utf8Length } from '@platform-ops/client';

type FilePurpose = 'batch' | 'batch_output';

interface StoredFile {
  id: string;
  ownerUserId: string;
  filename: string;
  purpose: FilePurpose;
  content: string;
  bytes: number;
  /** Emulated Unix ms. */
  createdAt: number;
  /** Emulated Unix ms after which the file is gone (retention from platform-notes). */
  expiresAt: number;
  totalRequests: number;
}

/** The file object of platform-notes: `{id, object, bytes, filename, created_at, purpose, metadata}`. */
export interface FileObjectBody {
  id: string;
  object: 'file';
  bytes: number;
  filename: string;
  /** Unix seconds, as OpenAI-compatible file objects carry it. */
  created_at: number;
  purpose: FilePurpose;
  metadata: { total_requests: number };
}

export function fileObject(file: StoredFile): FileObjectBody {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    filename: file.filename,
    created_at: Math.floor(file.createdAt / 1000),
    purpose: file.purpose,
    metadata: { total_requests: file.totalRequests },
  };
}

export class FileStore {
  /** Insertion order is creation order, which list relies on. */
  private readonly files = new Map<string, StoredFile>();

  add(input: Omit<StoredFile, 'bytes'>): StoredFile {
    const file: StoredFile = { ...input, bytes: utf8Length(input.content) };
    this.files.set(file.id, file);
    return file;
  }

  /** The caller's live file, or undefined (unknown, someone else's, deleted or past retention). */
  get(id: string, ownerUserId: string, now: number): StoredFile | undefined {
    const file = this.files.get(id);
    if (!file || file.ownerUserId !== ownerUserId) return undefined;
    if (now >= file.expiresAt) {
      this.files.delete(id);
      return undefined;
    }
    return file;
  }

  /** The caller's live files, newest first. */
  list(ownerUserId: string, now: number, purpose?: string): StoredFile[] {
    const out: StoredFile[] = [];
    for (const file of this.files.values()) {
      if (file.ownerUserId !== ownerUserId || now >= file.expiresAt) continue;
      if (purpose === undefined || file.purpose === purpose) out.push(file);
    }
    return out.reverse();
  }

  delete(id: string, ownerUserId: string, now: number): boolean {
    if (!this.get(id, ownerUserId, now)) return false;
    return this.files.delete(id);
  }

  /** Any file by id, ignoring owner and retention (admin view). */
  peek(id: string): StoredFile | undefined {
    return this.files.get(id);
  }

  clear(): void {
    this.files.clear();
  }
}
