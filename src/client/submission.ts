// Whether a failed submit may have created a paid task. The platform takes no idempotency key, so a
// submit that may have arrived cannot be repeated safely; one the platform clearly refused can.
import type { PlatformError } from './errors';

export type SubmitFailureClass =
  /** The platform answered that it did not take the request (429, 503, its own 500): safe to resend. */
  | 'refused'
  /** It may have created the task (timeout or reset after sending, 502/504, a garbled 2xx). */
  | 'ambiguous'
  /** It will never take this request (bad input, auth, budget): do not resend. */
  | 'rejected';

export function classifySubmitFailure(err: PlatformError): SubmitFailureClass {
  switch (err.kind) {
    case 'invalid_request':
      return 'rejected';
    case 'malformed_response':
      // A 2xx came back: the task most likely exists, but its id is unreadable.
      return 'ambiguous';
    case 'timeout':
    case 'network':
      return err.maybeDelivered ? 'ambiguous' : 'refused';
    case 'http': {
      const status = err.status ?? 0;
      if (status === 429) return 'refused';
      // The platform's own error body on a 500/503 means it handled the request and refused it; the
      // same status without that body comes from something in between that may have forwarded it.
      if ((status === 500 || status === 503) && err.reason !== undefined) return 'refused';
      if (status >= 500 || status === 408) return 'ambiguous';
      return 'rejected';
    }
  }
}
