// API-key authentication of platform routes (`Authorization: Bearer <key>`, or the bare key). A key
// resolves to a Caller (key id, name, masked form, user, paying member) set on `request.caller`.
// Keys are held only in this map: never logged, never echoed (answers name the masked form at most).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { maskKey } from './config';
import type { ApiKeyFixture } from './fixtures';
import { sendPlatformError } from './http';
import type { Caller } from './types';

interface KeyEntry {
  caller: Caller;
  disabled: boolean;
}

// The scheme is optional: the live platform also takes the bare key, which is what the vendor's own
// SDK (novita-sdk) sends.
const API_KEY_HEADER = /^(?:bearer\s+)?(\S+)\s*$/i;

export class KeyRing {
  private readonly byKey = new Map<string, KeyEntry>();

  load(keys: readonly ApiKeyFixture[]): void {
    this.byKey.clear();
    for (const k of keys) {
      this.byKey.set(k.key, {
        caller: {
          apiKeyId: k.id,
          apiKeyName: k.name,
          apiKeyMask: maskKey(k.key),
          userId: k.userId,
          memberId: k.memberId,
        },
        disabled: k.disabled,
      });
    }
  }

  /** The caller behind a key id (fixture history names keys by id). */
  callerById(apiKeyId: string): Caller | undefined {
    for (const e of this.byKey.values()) if (e.caller.apiKeyId === apiKeyId) return e.caller;
    return undefined;
  }

  /** onRequest hook for platform routes: 401 without a known key, 403 for a disabled one. */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const route = request.routeOptions.config.emulatorRoute;
    if (!route || route.kind !== 'platform') {
      done();
      return;
    }
    const header = request.headers.authorization;
    if (!header) {
      void sendPlatformError(reply, 401, 'UNAUTHENTICATED', 'missing API key: send "Authorization: Bearer <API_KEY>"');
      return;
    }
    const match = API_KEY_HEADER.exec(header);
    const entry = match ? this.byKey.get(match[1]) : undefined;
    if (!entry) {
      // The key itself is never repeated back, not even masked: it may be someone's real key sent to the wrong host.
      void sendPlatformError(reply, 401, 'INVALID_API_KEY', 'the API key is not valid');
      return;
    }
    if (entry.disabled) {
      void sendPlatformError(reply, 403, 'API_KEY_DISABLED', `API key ${entry.caller.apiKeyMask} is disabled`);
      return;
    }
    request.caller = entry.caller;
    done();
  };
}
