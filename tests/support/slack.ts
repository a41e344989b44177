/**
 * How much longer than on an idle machine a step may take before a test counts it as stuck. Deadlines in tests guard
 * against a hang; they are not limits on speed (benchmarks measure that). `npm test` runs the unit suite and both
 * end-to-end projects side by side on two cores, and on a busy machine a step routinely takes two to three times as
 * long as it does alone: every test timeout, `expect` wait and deadline a test sets itself is multiplied by this.
 */
export const SLACK = 3;
