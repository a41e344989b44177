import { SLACK } from "./slack";

export type WaitOptions = {
  /** The longest the condition takes on an idle machine, in ms; the wait allows SLACK times as long. */
  within?: number;
  /** How often the probe asks, in ms. */
  every?: number;
  /** What is awaited, for the error (a function is read when the wait fails, e.g. a child's output so far). */
  what?: string | (() => string);
};

/**
 * Asks `probe` until it answers with something truthy and returns that answer: the condition, not the time, ends a
 * wait for something asynchronous (a delivery, a job, a child process). Past the limit it fails, saying what it waited
 * for.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false>,
  { within = 30_000, every = 100, what = "the condition" }: WaitOptions = {},
): Promise<T> {
  const limitMs = within * SLACK;
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${limitMs / 1000} s waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
