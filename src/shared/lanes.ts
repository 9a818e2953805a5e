// At most `width` sections at a time, started in the order they were asked for. Plain promises, no
// Node modules: usable from workflow and activity code alike.
export class Lanes {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly width: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running < this.width) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // a finishing section hands over its lane
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
