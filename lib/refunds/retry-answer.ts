/**
 * Whether the answer to "Retry now" is shown as a success: only a refund that went through, or an attempt settled by
 * hand meanwhile. A retry answered with the refund still pending (paused again, the service failing), needing a person
 * or being made by another request is an action's answer too (`ok`, the attempt's state in `data`), shown as an error:
 * the person has something to do or to wait for.
 */
export function retryAnsweredWell(result: { ok: boolean; data?: unknown } | null): boolean {
  if (!result?.ok) return false;
  const state = (result.data as { state?: unknown } | undefined)?.state;
  return state === "succeeded" || state === "resolved";
}
