// Task callbacks, as the live platform sends them (platform-notes): when a task submitted with
// `extra.webhook.url` ends, POST `{event_type: "ASYNC_TASK_RESULT", payload: <task-result>}` to that
// URL, retried up to 5 times on a 5 s timeout or a non-2xx answer. Faults, each a share of tasks
// drawn at the task's end (or submit): lost (never sent), duplicated (sent twice), delayed (sent
// `delayMs` late), out of order (held back until the next callback has gone), and early (the submit's
// answer is held back until the callback has been sent, as when a quick task's answer is slow).
// Configured with PUT /_emulator/callbacks; GET shows the settings and what was sent.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { EmulatorClock } from '../clock';
import { parseOr400 } from '../http';
import type { TaskRecord } from './result';
import type { TaskStore } from './store';

const Rate = z.number().min(0).max(1);

const CallbackSettingsSchema = z.strictObject({
  lostRate: Rate,
  duplicateRate: Rate,
  delayRate: Rate,
  /** Real ms a delayed callback waits. */
  delayMs: z.number().int().min(0).max(600_000),
  outOfOrderRate: Rate,
  earlyRate: Rate,
  /** Per attempt (the platform's 5 s). */
  timeoutMs: z.number().int().min(1).max(60_000),
  /** Attempts after the first (the platform's 5). */
  retries: z.number().int().min(0).max(10),
  /** Wait before the first retry, doubling after each (not documented for the platform). */
  retryDelayMs: z.number().int().min(0).max(600_000),
});
type CallbackSettings = z.infer<typeof CallbackSettingsSchema>;

const DEFAULT_SETTINGS: CallbackSettings = {
  lostRate: 0,
  duplicateRate: 0,
  delayRate: 0,
  delayMs: 2_000,
  outOfOrderRate: 0,
  earlyRate: 0,
  timeoutMs: 5_000,
  retries: 5,
  retryDelayMs: 1_000,
};

/** An out-of-order callback waits at most this long for the next one. */
const HOLD_BACK_MAX_MS = 2_000;
/** An early-fault submit answers after this at the latest, callback sent or not. */
const EARLY_HOLD_MAX_MS = 60_000;

interface Stats {
  /** Callbacks planned (tasks with a URL that ended). */
  ended: number;
  attempts: number;
  /** Deliveries answered 2xx. */
  delivered: number;
  /** Callbacks given up after every retry. */
  failed: number;
  lost: number;
  duplicated: number;
  delayed: number;
  outOfOrder: number;
  early: number;
}

const zeroStats = (): Stats => ({
  ended: 0,
  attempts: 0,
  delivered: 0,
  failed: 0,
  lost: 0,
  duplicated: 0,
  delayed: 0,
  outOfOrder: 0,
  early: 0,
});

export class CallbackSender {
  private settings: CallbackSettings = DEFAULT_SETTINGS;
  private stats = zeroStats();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Tasks whose submit answer waits for their callback. */
  private readonly early = new Map<string, () => void>();
  private heldBack?: { send: () => void; timer: NodeJS.Timeout };
  /** Aborts the deliveries in flight on a reset (and so on close). */
  private aborter = new AbortController();

  constructor(
    private readonly clock: EmulatorClock,
    private readonly tasks: TaskStore,
  ) {
    tasks.onEnd = (task) => this.ended(task);
  }

  reset(): void {
    this.aborter.abort();
    this.aborter = new AbortController();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const release of this.early.values()) release();
    this.early.clear();
    this.heldBack = undefined;
    this.settings = DEFAULT_SETTINGS;
    this.stats = zeroStats();
  }

  /**
   * A task with a callback URL was submitted: its end is watched to the millisecond (the store's sweep
   * runs every 250 ms, too coarse for callbacks). Returns what the submit's answer must wait for.
   */
  submitted(task: TaskRecord): Promise<void> | undefined {
    if (!task.webhookUrl) return undefined;
    this.watch(task);
    if (Math.random() >= this.settings.earlyRate) return undefined;
    this.stats.early++;
    return new Promise<void>((resolve) => {
      const timer = this.later(EARLY_HOLD_MAX_MS, () => release());
      const release = () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.early.delete(task.id);
        resolve();
      };
      this.early.set(task.id, release);
    });
  }

  private watch(task: TaskRecord): void {
    const wait = this.clock.realDelay(task.endAt - this.clock.now());
    // The clock's speed may change meanwhile: settle() is a no-op before the end, so look again.
    this.later(Math.max(0, wait), () => {
      this.tasks.settle(task);
      if (!task.settlement) this.watch(task);
    });
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  private ended(task: TaskRecord): void {
    const url = task.webhookUrl;
    if (!url) return;
    this.stats.ended++;
    const s = this.settings;
    const body = `{"event_type":"ASYNC_TASK_RESULT","payload":${this.tasks.resultJson(task)}}`;
    const release = () => this.early.get(task.id)?.();
    if (Math.random() < s.lostRate) {
      this.stats.lost++;
      release();
      return;
    }
    const copies = Math.random() < s.duplicateRate ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    const send = () => {
      this.flushHeldBack();
      void this.deliver(url, body, copies, release);
    };
    if (Math.random() < s.delayRate) {
      this.stats.delayed++;
      this.later(s.delayMs, send);
    } else if (Math.random() < s.outOfOrderRate && !this.heldBack) {
      this.stats.outOfOrder++;
      const timer = this.later(HOLD_BACK_MAX_MS, () => this.flushHeldBack());
      this.heldBack = { send: () => void this.deliver(url, body, copies, release), timer };
    } else {
      send();
    }
  }

  /** The held-back callback goes now, after the one that overtook it. */
  private flushHeldBack(): void {
    const held = this.heldBack;
    if (!held) return;
    this.heldBack = undefined;
    clearTimeout(held.timer);
    this.timers.delete(held.timer);
    setImmediate(held.send);
  }

  /** Sends `copies` times in a row, each with the platform's retries; `sent` once the first copy is through. */
  private async deliver(url: string, body: string, copies: number, sent: () => void): Promise<void> {
    const { signal } = this.aborter;
    for (let copy = 0; copy < copies && !signal.aborted; copy++) {
      let ok = false;
      for (let attempt = 0; attempt <= this.settings.retries && !ok && !signal.aborted; attempt++) {
        if (attempt > 0)
          await new Promise((r) => this.later(this.settings.retryDelayMs * 2 ** (attempt - 1), () => r(undefined)));
        this.stats.attempts++;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
          });
          await res.arrayBuffer();
          ok = res.ok;
        } catch {
          ok = false;
        }
      }
      if (ok) this.stats.delivered++;
      else this.stats.failed++;
      if (copy === 0) sent();
    }
  }

  view(): { settings: CallbackSettings; stats: Stats } {
    return { settings: this.settings, stats: { ...this.stats } };
  }

  registerAdmin(app: FastifyInstance): void {
    app.get('/callbacks', (_request, reply) => reply.send(this.view()));
    app.put('/callbacks', (request, reply) => {
      const body = parseOr400(reply, CallbackSettingsSchema.partial(), request.body);
      if (!body) return reply;
      this.settings = { ...this.settings, ...body };
      return reply.send(this.view());
    });
  }
}
