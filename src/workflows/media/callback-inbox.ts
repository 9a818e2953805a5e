// The task ends a mediaGeneration has been told by callback (taskCallback signal). Plain class, no
// Temporal imports: unit-tested without a server. A callback may come before the submit that made
// the task has answered (the task was quick, the answer slow), so ends are kept by task id, not only
// for the task being waited on. Bounded: a run has at most a few dozen tasks (generations × submit
// attempts), and a repeat of a known end changes nothing.
import { isTerminalTaskStatus } from '../../platform/schemas/media';
import { TaskCallback } from './contract';

/** Ends kept at most; the oldest is dropped first (its task is long past by then). */
const MAX_KEPT = 32;

export class TaskCallbackInbox {
  private readonly ends = new Map<string, TaskCallback>();

  /** Keeps a valid terminal end not seen before; returns whether it was kept. */
  add(raw: unknown): boolean {
    const parsed = TaskCallback.safeParse(raw);
    if (!parsed.success || !isTerminalTaskStatus(parsed.data.status)) return false;
    const end = parsed.data;
    if (this.ends.has(end.taskId)) return false;
    if (this.ends.size >= MAX_KEPT) this.ends.delete(this.ends.keys().next().value!);
    this.ends.set(end.taskId, end);
    return true;
  }

  endOf(taskId: string): TaskCallback | undefined {
    return this.ends.get(taskId);
  }
}
