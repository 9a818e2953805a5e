// What the emulator saw: submissions, polls per task, requests per route, 429s sent and faults
// injected. Plain objects with integer bumps: this runs on every request, task-result polls included.

type FaultKind = 'latency' | 'hang' | 'reset' | 'error5xx' | 'rate429' | 'malformed' | 'cut';

export interface CountersView {
  submissions: { total: number; byOperation: Record<string, number> };
  polls: { total: number; byTask: Record<string, number> };
  requests: Record<string, number>;
  /** Every 429 sent: quota refusals and injected ones. */
  rateLimited: number;
  faultsInjected: { total: number; byKind: Record<string, number>; byRoute: Record<string, number> };
  /**
   * Paid calls carried out (2xx), per route key and per subject (see paid-calls.ts); for a subject
   * carried out more than once, when each of its first answers was made (epoch ms), so a duplicate
   * can be set beside the fault that struck at that moment.
   */
  paid: {
    total: number;
    byRoute: Record<string, Record<string, number>>;
    repeatedAt: Record<string, Record<string, number[]>>;
  };
}

/** Answer times kept per subject: enough to place a duplicate, bounded for a subject asked endlessly. */
const ANSWER_TIMES_KEPT = 4;

export class Counters {
  private submissionsTotal = 0;
  private readonly submissionsByOp = new Map<string, number>();
  private pollsTotal = 0;
  private readonly pollsByTask = new Map<string, number>();
  private readonly requestsByRoute = new Map<string, number>();
  private rateLimitedTotal = 0;
  private faultsTotal = 0;
  private readonly faultsByKind = new Map<string, number>();
  private readonly faultsByRoute = new Map<string, number>();
  private paidTotal = 0;
  private readonly paidByRoute = new Map<string, Map<string, number>>();
  private readonly paidAt = new Map<string, Map<string, number[]>>();

  request(routeKey: string): void {
    this.requestsByRoute.set(routeKey, (this.requestsByRoute.get(routeKey) ?? 0) + 1);
  }

  submission(operation: string): void {
    this.submissionsTotal++;
    this.submissionsByOp.set(operation, (this.submissionsByOp.get(operation) ?? 0) + 1);
  }

  poll(taskId: string): void {
    this.pollsTotal++;
    this.pollsByTask.set(taskId, (this.pollsByTask.get(taskId) ?? 0) + 1);
  }

  pollsOf(taskId: string): number {
    return this.pollsByTask.get(taskId) ?? 0;
  }

  rateLimited(): void {
    this.rateLimitedTotal++;
  }

  fault(kind: FaultKind, routeKey: string): void {
    this.faultsTotal++;
    this.faultsByKind.set(kind, (this.faultsByKind.get(kind) ?? 0) + 1);
    this.faultsByRoute.set(routeKey, (this.faultsByRoute.get(routeKey) ?? 0) + 1);
  }

  paid(routeKey: string, subject: string): void {
    this.paidTotal++;
    let bySubject = this.paidByRoute.get(routeKey);
    if (!bySubject) this.paidByRoute.set(routeKey, (bySubject = new Map<string, number>()));
    bySubject.set(subject, (bySubject.get(subject) ?? 0) + 1);
    let atBySubject = this.paidAt.get(routeKey);
    if (!atBySubject) this.paidAt.set(routeKey, (atBySubject = new Map<string, number[]>()));
    const at = atBySubject.get(subject) ?? [];
    if (at.length < ANSWER_TIMES_KEPT) atBySubject.set(subject, [...at, Date.now()]);
  }

  reset(): void {
    this.submissionsTotal = 0;
    this.submissionsByOp.clear();
    this.pollsTotal = 0;
    this.pollsByTask.clear();
    this.requestsByRoute.clear();
    this.rateLimitedTotal = 0;
    this.faultsTotal = 0;
    this.faultsByKind.clear();
    this.faultsByRoute.clear();
    this.paidTotal = 0;
    this.paidByRoute.clear();
    this.paidAt.clear();
  }

  view(): CountersView {
    const obj = (m: Map<string, number>) => Object.fromEntries(m);
    return {
      submissions: { total: this.submissionsTotal, byOperation: obj(this.submissionsByOp) },
      polls: { total: this.pollsTotal, byTask: obj(this.pollsByTask) },
      requests: obj(this.requestsByRoute),
      rateLimited: this.rateLimitedTotal,
      faultsInjected: { total: this.faultsTotal, byKind: obj(this.faultsByKind), byRoute: obj(this.faultsByRoute) },
      paid: {
        total: this.paidTotal,
        byRoute: Object.fromEntries([...this.paidByRoute].map(([route, m]) => [route, obj(m)])),
        repeatedAt: Object.fromEntries(
          [...this.paidAt].map(([route, m]) => [route, Object.fromEntries([...m].filter(([, at]) => at.length > 1))]),
        ),
      },
    };
  }
}
