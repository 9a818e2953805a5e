// Emulated time. Every duration in the emulator (task runs, batch phases, the 48 h window, URL TTLs)
// is measured on this clock, so EMULATOR_CLOCK_SPEED speeds all of them up at once. The speed can
// change at run time: the clock is rebased so emulated time never jumps.

export class EmulatorClock {
  private realAnchor: number;
  private emulatedAnchor: number;

  constructor(
    private speedFactor = 1,
    private readonly realNow: () => number = Date.now,
  ) {
    if (!(speedFactor > 0)) throw new RangeError('clock speed must be greater than 0');
    this.realAnchor = realNow();
    this.emulatedAnchor = this.realAnchor;
  }

  /** Emulated Unix time in milliseconds. */
  now(): number {
    return this.emulatedAnchor + (this.realNow() - this.realAnchor) * this.speedFactor;
  }

  get speed(): number {
    return this.speedFactor;
  }

  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new RangeError('clock speed must be greater than 0');
    this.emulatedAnchor = this.now();
    this.realAnchor = this.realNow();
    this.speedFactor = speed;
  }

  /** Moves emulated time forward (tests: "let the 48 h window pass"). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('can only advance by a non-negative duration');
    this.emulatedAnchor += ms;
  }

  /** Real milliseconds until `emulatedMs` of emulated time have passed. */
  realDelay(emulatedMs: number): number {
    return Math.max(0, emulatedMs / this.speedFactor);
  }
}
